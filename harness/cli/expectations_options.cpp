#include "harness/cli/expectations_options.h"

#include <fmt/format.h>

#include "harness/cli/common.h"
#include "harness/model/expectations_draft.h"
#include "harness/model/reaper_name.h"
#include "harness/model/toml_reader.h"
#include "reports/file_output.h"

namespace reapcheck {

void add_expectation_options(CLI::App* cmd, ExpectationFiles& files) {
  cmd->add_option("--expectations", files.read,
                  "Known weaknesses of a reaper of this run, in the built-in reapers' format: "
                  "the run exits 0 when every verdict is as declared, 1 on a new failure or on "
                  "a declared weakness that now passes (repeatable; docs/gate.md)")
      ->type_name("FILE");
  cmd->add_option("--write-expectations", files.write,
                  "After the run, write the weaknesses the reaper showed as such a file, each "
                  "reason to write (a run of one reaper, labelled: --reaper NAME=exec:CMD)")
      ->type_name("FILE");
}

void apply_expectation_files(const ExpectationFiles& files, const ScenarioSet& set,
                             MatrixPlan& plan) {
  if (plan.expect_pass && (!files.read.empty() || !files.write.empty())) {
    throw UsageError(
        "--expect-pass ignores declared weaknesses, which --expectations and "
        "--write-expectations are about: give one or the other");
  }
  if (!files.write.empty()) {
    if (plan.reapers.size() != 1) {
      throw UsageError(fmt::format(
          "--write-expectations writes one reaper's file, and this run has {} reapers: give one "
          "--reaper",
          plan.reapers.size()));
    }
    const std::string& id = plan.reapers.front();
    if (!is_plain_name(id) && split_reaper_label(id).label.empty()) {
      throw UsageError(fmt::format(
          "--write-expectations: --reaper {} has no name to file its expectations under: label "
          "it, --reaper NAME={}",
          id, id));
    }
    check_writable(files.write);
  }
  std::vector<std::string> names;
  names.reserve(plan.reapers.size());
  for (const auto& id : plan.reapers) names.push_back(reaper_name(id));
  for (const auto& file : files.read) {
    plan.expectations.add(
        parse_expectations(read_input(file), file, set.ids(), names, "this run's reapers"));
  }
}

bool write_expectations_draft(const ExpectationFiles& files, const RunResult& run,
                              const MatrixPlan& plan) {
  if (files.write.empty()) return true;
  const std::string& reaper = plan.reapers.front();
  const ExpectationsDraft draft =
      draft_expectations(run, reaper, plan.expectations.find(reaper_name(reaper)));
  try {
    write_text_file(files.write, draft.text);
  } catch (const std::exception& e) {
    fmt::print(stderr, "reapcheck: --write-expectations: {}\n", e.what());
    return false;
  }
  fmt::print(stderr, "reapcheck: wrote {}: {} scenario{} declared{}\n", files.write, draft.declared,
             draft.declared == 1 ? "" : "s",
             draft.to_explain == 0
                 ? std::string()
                 : fmt::format(", {} reason{} to write (an empty reason is refused)",
                               draft.to_explain, draft.to_explain == 1 ? "" : "s"));
  if (!draft.undeclared.empty())
    fmt::print(stderr, "reapcheck: not declared: {}\n", draft.undeclared);
  return true;
}

}  // namespace reapcheck
