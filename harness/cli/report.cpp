// `reapcheck report`: the reports written again from a results.json (the HTML matrix, JUnit, the
// terminal matrix), as `run` writes them.
#include <fmt/format.h>

#include "harness/cli/commands.h"
#include "reports/html_report.h"
#include "reports/json_report.h"
#include "reports/junit_report.h"
#include "reports/text_matrix.h"

namespace reapcheck {
namespace {

struct ReportArgs {
  std::string input;
  std::string html;
  std::string junit;
};

int report(const ReportArgs& args) {
  RunResult results;
  try {
    results = read_json_report(args.input);
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
  if (!args.html.empty()) write_html_report(results, args.html);
  if (!args.junit.empty()) write_junit_report(results, args.junit);
  fmt::print("{}{}", text_matrix(results, use_colour()), text_deviations(results));
  return 0;
}

}  // namespace

Command report_command(CLI::App& app, const GlobalArgs&) {
  auto args = std::make_shared<ReportArgs>();
  auto* cmd = app.add_subcommand(
      "report", "Write reports again from a results.json (HTML matrix, JUnit, terminal matrix)");
  cmd->add_option("results", args->input, "A results.json written by `reapcheck run`")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--html", args->html, "Write the HTML matrix to FILE");
  cmd->add_option("--junit", args->junit, "Write JUnit XML to FILE");
  return {cmd, [args] { return report(*args); }};
}

}  // namespace reapcheck
