// The report files a command writes (--json, --junit, --html, --out DIR): checked before anything
// runs, so a bad path costs nothing, and written one by one afterwards, so one that still fails
// (a full disk) loses only itself.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "harness/model/result.h"
#include "reports/text_matrix.h"

namespace reapcheck {

struct OutputFiles {
  std::string json;     // --json FILE
  std::string junit;    // --junit FILE
  std::string html;     // --html FILE
  std::string out_dir;  // --out DIR: results.json, junit.xml, matrix.txt, matrix.html
};

// Creates --out DIR (the one folder reapcheck makes) and checks that every file can be written
// there; UsageError naming the path and the reason otherwise.
void check_outputs(const OutputFiles& files);

// Writes every file it can; prints each that fails, with its path and reason, on stderr.
// Returns whether all were written.
bool write_outputs(const RunResult& run, const OutputFiles& files);

// How much of the terminal report a command prints: -q,--quiet and --explain.
struct TextChoice {
  bool quiet = false;
  bool explain = false;

  TextDetail detail() const;
};

// -q,--quiet and --explain (which exclude each other) on `cmd`, into `choice`; `quiet_also`
// ends -q's help with what else it silences ("; no progress lines").
void add_text_options(CLI::App* cmd, TextChoice& choice, const std::string& quiet_also = {});

}  // namespace reapcheck
