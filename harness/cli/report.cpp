// `reapcheck report`: the reports written again from a results.json (the HTML matrix, JUnit, the
// terminal matrix), as `run` writes them; with --merge, from the results.json of every slice of
// a sharded run, joined into the result of the whole plan, or of whole runs of one plan, joined
// as the repeats of one run; with --recover, from the journal of a run that was killed.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/cli/commands.h"
#include "harness/cli/guide.h"
#include "harness/cli/journal.h"
#include "harness/cli/outputs.h"
#include "harness/model/merge.h"
#include "harness/model/summary.h"
#include "harness/support/exit_status.h"
#include "reports/json_report.h"
#include "reports/text_matrix.h"

namespace reapcheck {
namespace {

struct ReportArgs {
  GuideArgs guide;  // --guide DIR [--check FILE | --write FILE]
  std::vector<std::string> inputs;
  std::string recover;  // --recover DIR
  bool merge = false;
  OutputFiles outputs;  // --json, --junit, --html
  TextChoice text;      // -q, --explain
};

RunResult read_input(const std::string& file) {
  try {
    return read_json_report(file);
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
}

RunResult merged(const std::vector<std::string>& files) {
  std::vector<RunResult> slices;
  slices.reserve(files.size());
  for (const auto& f : files) slices.push_back(read_input(f));
  Merged m;
  try {
    m = merge_runs(slices, files);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  if (!m.missing.empty()) {
    fmt::print(stderr, "reapcheck: the slices hold no result for {} cell(s) of the plan: {}\n",
               m.missing.size(), fmt::join(m.missing, ", "));
  }
  return std::move(m.run);
}

// `report --recover DIR`: the reports of a run that was killed, from its journal, into DIR.
int recover(const GlobalArgs& global, const ReportArgs& args) {
  if (!args.inputs.empty() || args.merge) {
    throw UsageError("--recover DIR takes no results file and no --merge");
  }
  int torn = 0;
  RunResult run;
  try {
    run = recover_journal(args.recover, &torn);
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
  const OutDirLock lock(args.recover);  // not while a run still writes there
  OutputFiles outputs = args.outputs;
  outputs.out_dir = args.recover;
  check_outputs(outputs);
  fmt::print(stderr, "reapcheck: recovered {} finished case(s) from {}/{}{}\n", run.cases.size(),
             args.recover, Journal::kFile,
             torn > 0 ? fmt::format(" ({} line(s) cut short by the kill left out)", torn) : "");
  fmt::print("{}", text_report(run, use_colour(global), args.text.detail()));
  if (!write_outputs(run, outputs)) return kExitUsage;
  // A run that did not finish is no pass, whatever its finished cases say.
  return summarise(run).ok() && run.never_run == 0 ? kExitOk : kExitDeviation;
}

int report(const GlobalArgs& global, const ReportArgs& args) {
  if (!args.guide.data.empty()) {
    if (!args.inputs.empty() || args.merge || !args.recover.empty()) {
      throw UsageError("--guide DIR takes no results file, no --merge and no --recover");
    }
    return reapers_guide(global, args.guide);
  }
  if (!args.guide.keep.empty()) {
    if (args.inputs.size() != 1 || args.merge || !args.recover.empty()) {
      throw UsageError("--keep-guide-data DIR takes one results.json, of a `run --presets`");
    }
    return keep_guide_data(args.inputs.front(), args.guide);
  }
  if (!args.guide.check.empty() || !args.guide.write.empty()) {
    throw UsageError("--check and --write are for the guide: add --guide DIR");
  }
  if (!args.recover.empty()) return recover(global, args);
  if (args.inputs.empty()) {
    throw UsageError("report needs a results.json (or --recover DIR, for a killed run's journal)");
  }
  if (!args.merge && args.inputs.size() > 1) {
    throw UsageError(
        "several results files: add --merge to join the slices of a sharded run, or whole runs "
        "as repeats");
  }
  check_outputs(args.outputs);
  const RunResult results = args.merge ? merged(args.inputs) : read_input(args.inputs.front());
  fmt::print("{}", text_report(results, use_colour(global), args.text.detail()));
  if (!write_outputs(results, args.outputs)) return kExitUsage;
  return args.merge && (!summarise(results).ok() || results.never_run > 0) ? kExitDeviation
                                                                           : kExitOk;
}

}  // namespace

Command report_command(CLI::App& app, const GlobalArgs& global) {
  auto args = std::make_shared<ReportArgs>();
  auto* cmd = app.add_subcommand(
      "report",
      "Write reports again from a results.json (HTML matrix, JUnit, terminal matrix), or join "
      "the results of the slices of a sharded run, or of whole runs as repeats (--merge)");
  cmd->footer(
      "Examples:\n"
      "  reapcheck report reports/latest/results.json --html matrix.html\n"
      "  reapcheck report --merge slice1.json slice2.json --json all.json\n"
      "  reapcheck report --recover reports/latest   # a run killed outright\n"
      "  reapcheck report --guide docs/data --check docs/reapers.md");
  cmd->add_option("results", args->inputs, "results.json written by `reapcheck run`")
      ->type_name("FILE")
      // Without its description, so that the help says FILE and not FILE:FILE.
      ->check(CLI::Validator(CLI::ExistingFile).description(""));
  cmd->add_flag("--merge", args->merge,
                "Join the results.json of every `run --shard K/N` into one run's results, or whole "
                "runs of one plan as its repeats (a cell whose verdicts differ between them is "
                "inconsistent); exits 1 when a verdict differs from its expectation or repeats "
                "disagree, as `run` does");
  cmd->add_option("--recover", args->recover,
                  "Rebuild results.json, junit.xml and the matrices in DIR from the journal a "
                  "killed `run --out DIR` left there")
      ->type_name("DIR");
  cmd->add_option("--guide", args->guide.data,
                  "Write the guide to choosing a reaper (docs/reapers.md) from the catalogue, the "
                  "expectations and the run and bench kept in DIR (presets-run.json, bench.json); "
                  "a reaper or scenario the run does not hold is reported as not yet measured")
      ->type_name("DIR");
  cmd->add_option("--check", args->guide.check,
                  "With --guide: exit 1 when FILE is not the guide, or when a verdict of the kept "
                  "run is no longer one its expectation allows")
      ->type_name("FILE");
  cmd->add_option("--write", args->guide.write, "With --guide: write the guide to FILE")
      ->type_name("FILE");
  cmd->add_option("--keep-guide-data", args->guide.keep,
                  "Keep in DIR what the guide needs of a `run --presets` (its results.json) and "
                  "of a `reapcheck bench` (--bench): DIR/presets-run.json and DIR/bench.json")
      ->type_name("DIR");
  cmd->add_option("--bench", args->guide.bench, "With --keep-guide-data: the bench.json")
      ->type_name("FILE");
  cmd->add_option("--command", args->guide.command,
                  "With --keep-guide-data: the command lines that made them, as the guide says")
      ->type_name("TEXT");
  cmd->add_option("--html", args->outputs.html, "Write the HTML matrix to FILE")->type_name("FILE");
  cmd->add_option("--junit", args->outputs.junit, "Write JUnit XML to FILE")->type_name("FILE");
  cmd->add_option("--json", args->outputs.json, "Write the (merged) results as JSON to FILE")
      ->type_name("FILE");
  add_text_options(cmd, args->text);
  return {cmd, [args, &global] { return report(global, *args); }};
}

}  // namespace reapcheck
