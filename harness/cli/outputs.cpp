#include "harness/cli/outputs.h"

#include <fmt/format.h>

#include <filesystem>
#include <functional>
#include <vector>

#include "harness/cli/common.h"
#include "reports/file_output.h"
#include "reports/html_report.h"
#include "reports/json_report.h"
#include "reports/junit_report.h"
#include "reports/text_matrix.h"

namespace reapcheck {
namespace {

using Writer = std::function<void(const RunResult&, const std::filesystem::path&)>;

struct ReportFile {
  std::filesystem::path path;
  Writer write;
};

void write_matrix_text(const RunResult& run, const std::filesystem::path& file) {
  write_text_file(file, text_report(run, false, TextDetail::explain));
}

std::vector<ReportFile> report_files(const OutputFiles& files) {
  std::vector<ReportFile> out;
  if (!files.json.empty()) out.push_back({files.json, write_json_report});
  if (!files.junit.empty()) out.push_back({files.junit, write_junit_report});
  if (!files.html.empty()) out.push_back({files.html, write_html_report});
  if (!files.out_dir.empty()) {
    const std::filesystem::path dir(files.out_dir);
    out.push_back({dir / "results.json", write_json_report});
    out.push_back({dir / "junit.xml", write_junit_report});
    out.push_back({dir / "matrix.txt", write_matrix_text});
    out.push_back({dir / "matrix.html", write_html_report});
  }
  return out;
}

}  // namespace

void check_outputs(const OutputFiles& files) {
  if (!files.out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(files.out_dir, ec);
    if (ec) {
      throw UsageError(
          fmt::format("cannot create --out {}: {}; nothing was run", files.out_dir, ec.message()));
    }
  }
  for (const auto& f : report_files(files)) {
    try {
      check_writable(f.path);
    } catch (const ReportWriteError& e) {
      throw UsageError(fmt::format("cannot write {}; nothing was run", e.what()));
    }
  }
}

TextDetail TextChoice::detail() const {
  if (quiet) return TextDetail::quiet;
  return explain ? TextDetail::explain : TextDetail::normal;
}

void add_text_options(CLI::App* cmd, TextChoice& choice, const std::string& quiet_also) {
  auto* quiet = cmd->add_flag("-q,--quiet", choice.quiet,
                              "Print the deviations and the summary line only" + quiet_also);
  cmd->add_flag("--explain", choice.explain,
                "Print every deviation in full, and each declared weakness with its evidence "
                "and lesson, each skip with its reason (by default one line per reaper says how "
                "many it declares; matrix.txt always holds all of it)")
      ->excludes(quiet);
}

bool write_outputs(const RunResult& run, const OutputFiles& files) {
  bool ok = true;
  for (const auto& f : report_files(files)) {
    try {
      f.write(run, f.path);
    } catch (const ReportWriteError& e) {
      fmt::print(stderr, "reapcheck: cannot write {}; the other reports are written\n", e.what());
      ok = false;
    }
  }
  return ok;
}

}  // namespace reapcheck
