// A case's evidence as every human-readable report shows it (terminal, JUnit, HTML, reproduce):
// what survived, who was signalled and by whom, what the reaper left behind — one list of
// sections, rendered as text or HTML, so the reports cannot tell different stories.
//
// This is also the one place where evidence is bounded: a report shows at most a screenful per
// case (the first survivors and "and N more", argv cut at a readable width, the reason cut), so
// a reaper that leaves a thousand processes still gives a readable page. results.json keeps
// everything.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "harness/model/cut.h"
#include "harness/model/result.h"

namespace reapcheck {

// How much of a case the human-readable reports show.
struct EvidenceLimits {
  size_t processes = 8;  // survivors drawn in the forest, and entries of each list
  size_t width = 110;    // characters of one line (a forest row, a ledger record, a step)
  size_t reason = 240;   // characters of the judge's reason
};
inline constexpr EvidenceLimits kEvidenceLimits{};

struct EvidenceSection {
  std::string title;               // "survivors", "signals from the reaper's side", ...
  std::vector<std::string> lines;  // one item each
  bool preformatted = false;       // a process forest: keep its indentation
};

// `argv` joined, within `width` characters: whole when it fits; else each long path by its last
// two components ("/usr/bin/perl …/perl/tree.pl …/.reapcheck/spec.json"), so that a deep
// install or worktree path does not push the script's name out of the line; then cut.
std::string fitted_argv(const std::vector<std::string>& argv, size_t width);

// The judge's reason, cut to kEvidenceLimits.reason.
std::string short_reason(const CaseResult& c);

// One line of the evidence that decided the verdict, for a CI tool's headline (JUnit's failure
// message): "escaped (pid 6, perl tree.pl) survived; port 41002 (watcher) held by pid 6",
// "sibling-agent got SIGKILL from pid 9 (sh -c ...)".
std::string evidence_summary(const CaseResult& c);

// What decided the verdict in one line of at most about `width` characters, for a deviation
// listed in one line: "survived: agent (pid 7), shell (pid 9) and 3 more", "sibling-agent got
// SIGKILL from pgroup (pid 4)". Lists drop whole items to fit; a single long item (a reaper's
// error message) is cut.
std::string evidence_brief(const CaseResult& c, size_t width);

// `listed_in`: the file that holds every entry of a list cut short here ("… and 993 more
// (results.json lists all 1001)"); empty when the command writes none, which the line then says.
std::vector<EvidenceSection> evidence_sections(const CaseResult& c,
                                               std::string_view listed_in = "results.json");

// The line that ends a list cut short: `left` more `what` ("calls"; empty for processes), of
// `all`, and where every one is listed (as evidence_sections says).
std::string more_than_shown(size_t left, std::string_view what, size_t all,
                            std::string_view listed_in);

// For a case that passed where a weakness is declared: the file and line that declares it, to
// delete. Empty for any other case.
std::string stale_declaration(const CaseResult& c);

// What a reader of a failing or known-weak cell should learn: the scenario, why this technique
// fails it (the declared reason; for a pass where a weakness is declared, stale_declaration()), and
// which reapers pass it, with the flag to try. Empty when the run carries no notes for the scenario
// and declares no reason.
std::vector<std::string> lesson_lines(const CaseResult& c, const ScenarioNotes* notes);

// Each section as "TITLE:" and its lines indented under it, every line prefixed with `indent`.
std::string evidence_text(const CaseResult& c, const std::string& indent = "  ",
                          std::string_view listed_in = "results.json");

}  // namespace reapcheck
