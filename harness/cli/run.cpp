// `reapcheck run`: scenarios × reapers, each case in its own sandbox; prints the matrix, writes
// the reports, and exits 1 when a verdict differs from its expectation.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "harness/cli/commands.h"
#include "harness/cli/expectations_options.h"
#include "harness/cli/last_run.h"
#include "harness/cli/progress.h"
#include "harness/cli/recorded_run.h"
#include "harness/engine/run/matrix.h"
#include "harness/engine/tree/fixture.h"
#include "harness/model/summary.h"
#include "harness/model/text.h"
#include "harness/sandbox/memory_bound.h"
#include "harness/support/exit_status.h"
#include "harness/support/interrupt.h"
#include "reports/text_matrix.h"

namespace reapcheck {
namespace {

struct RunArgs {
  std::vector<std::string> scenarios;  // ids and globs
  std::vector<std::string> tags;
  std::vector<std::string> reapers;
  std::string rerun_failed;       // --rerun-failed DIR
  OutputFiles outputs;            // --json, --junit, --out
  ExpectationFiles expectations;  // --expectations, --write-expectations
  std::string shard;
  Timing timing;  // --grace, --settle
  CaseBase base;  // --keep-trace
  int repeat = 1;
  int jobs = default_jobs();
  int skip_exit_code = 0;
  TextChoice text;  // -q, --explain
  bool presets = false;
  bool expect_pass = false;
  bool no_ledger = false;
  bool fail_fast = false;
};

Shard shard_of(const RunArgs& args) {
  if (args.shard.empty()) return {};
  const auto shard = parse_shard(args.shard);
  if (!shard) {
    throw UsageError(
        fmt::format("--shard {}: expected K/N, 1 <= K <= N (such as 2/3)", args.shard));
  }
  return *shard;
}

// The run's header: where, when and how; the options that make shards parts of one run.
RunInfo info_of(const MatrixPlan& plan, const RunArgs& args) {
  RunInfo info = run_info({{"grace", fmt::format("{} ms", args.timing.grace_ms)},
                           {"settle", fmt::format("{} ms", args.timing.settle_ms)},
                           {"expect-pass", args.expect_pass ? "yes" : "no"},
                           {"ledger", args.no_ledger ? "off" : "on"},
                           {"memory-max", memory_text(args.base.memory_bound())}});
  if (plan.shard.count > 1) info.shard = plan.shard.text();
  for (const auto& s : plan.scenarios) info.plan_scenarios.push_back(s.id);
  info.plan_reapers = printable(plan.reapers);  // as the cases name them (CaseResult::reaper)
  return info;
}

// The scenarios and reapers of the plan: those the command line names; with --rerun-failed DIR,
// of those, the ones of the cells that failed there (`failed`), and only those cells.
void select_for(MatrixPlan& plan, const ScenarioSet& set, const GlobalArgs& global,
                const RunArgs& args,
                const std::vector<std::pair<std::string, std::string>>& failed) {
  std::vector<std::string> scenarios = args.scenarios;
  std::vector<std::string> reapers = args.reapers;
  const bool named_scenarios = !args.scenarios.empty() || !args.tags.empty();
  const bool named_reapers = !args.reapers.empty() || args.presets;
  for (const auto& [scenario, reaper] : failed) {
    if (!named_scenarios) scenarios.push_back(scenario);
    if (!named_reapers) reapers.push_back(reaper);
  }
  plan.scenarios = select_scenarios(set, scenarios, args.tags);
  plan.reapers = select_reapers(reapers, args.presets, global.layout);
  if (failed.empty()) return;
  plan.only_cells = failed;
  const bool any = std::any_of(failed.begin(), failed.end(), [&](const auto& cell) {
    return std::any_of(plan.scenarios.begin(), plan.scenarios.end(),
                       [&](const Scenario& s) { return s.id == cell.first; }) &&
           std::find(plan.reapers.begin(), plan.reapers.end(), cell.second) != plan.reapers.end();
  });
  if (!any) {
    throw UsageError(fmt::format(
        "--rerun-failed {}: none of the {} cell(s) that failed there is one that --scenario, "
        "--tag and --reaper select; nothing was run",
        args.rerun_failed, failed.size()));
  }
}

// The run's plan; nothing when --rerun-failed DIR finds nothing that failed there (it says so).
std::optional<MatrixPlan> plan_of(const GlobalArgs& global, const RunArgs& args) {
  std::vector<std::pair<std::string, std::string>> failed;
  if (!args.rerun_failed.empty()) {
    const RunResult last = read_last_run(args.rerun_failed, "--rerun-failed");
    failed = failed_cells(last);
    if (failed.empty()) {
      fmt::print("nothing failed in {}/results.json ({} case(s){}); nothing was run\n",
                 args.rerun_failed, last.cases.size(),
                 last.never_run > 0 ? fmt::format(", {} more never ran", last.never_run) : "");
      return std::nullopt;
    }
  }
  const ScenarioSet set = load_inputs(global);
  MatrixPlan plan;
  select_for(plan, set, global, args, failed);
  if (auto missing = missing_interpreters(plan.scenarios, global.layout); !missing.empty()) {
    throw UsageError(missing);
  }
  require_usable_host();
  plan.expectations = set.expectations;
  plan.expect_pass = args.expect_pass;
  apply_expectation_files(args.expectations, set, plan);
  plan.repeat = args.repeat;
  plan.jobs = args.jobs;
  plan.shard = shard_of(args);
  plan.fail_fast = args.fail_fast;
  // A scenario's own command (an [agent] with dir) runs with the PATH it runs with for you.
  plan.options = args.base.options(global);
  args.timing.apply_to(plan.options);
  plan.options.ledger = !args.no_ledger;
  return plan;
}

// The run's end: the matrix of what finished, the reports (an interrupted run's are written
// already), the expectations drafted, and the exit status. A run --fail-fast stopped fails,
// whatever the cases it ran gave.
int finish(const GlobalArgs& global, const RunArgs& args, RecordedRun& recorded,
           const RunResult& run, const MatrixPlan& plan, bool whole) {
  fmt::print("{}", text_report(run, use_colour(global), args.text.detail()));
  if (!whole) return kExitInterrupted;
  if (!recorded.write(run)) return kExitUsage;
  if (!write_expectations_draft(args.expectations, run, plan)) return kExitUsage;
  const Summary summary = summarise(run);
  if (!summary.ok() || run.never_run > 0) return kExitDeviation;
  if (args.skip_exit_code != 0 && summary.skipped() == static_cast<int>(summary.cells.size())) {
    return args.skip_exit_code;
  }
  return kExitOk;
}

int run(const GlobalArgs& global, const RunArgs& args) {
  const std::optional<MatrixPlan> plan = plan_of(global, args);
  if (!plan) return kExitOk;  // --rerun-failed: nothing failed
  // The last run's times, for the time left: --out DIR's, before this run replaces them.
  std::map<CellKey, double> last_times = last_cell_times(args.outputs.out_dir);
  if (last_times.empty()) last_times = last_cell_times(args.rerun_failed);
  RecordedRun recorded(args.outputs);  // one run at a time on --out DIR
  watch_interrupts();
  RunResult run;
  run.info = info_of(*plan, args);
  run.scenarios = notes_for(plan->scenarios, plan->expectations, global.layout);
  const bool whole = recorded.run(
      *plan, run, ProgressLines(args.text.quiet, args.repeat > 1, *plan, std::move(last_times)));
  return finish(global, args, recorded, run, *plan, whole);
}

}  // namespace

Command run_command(CLI::App& app, const GlobalArgs& global) {
  auto args = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand(
      "run", "Run scenarios × reapers, each case in its own sandbox, and print the matrix");
  cmd->footer(
      "Examples:\n"
      "  reapcheck run --scenario setsid-escape --reaper pgroup --reaper cgroup\n"
      "  reapcheck run --scenario '*-escape' --reaper 'p*' --fail-fast\n"
      "  reapcheck run --tag race --reaper cgroup\n"
      "  reapcheck run --rerun-failed reports/gate --out reports/again\n"
      "  reapcheck run --reaper exec:'kill -9 -{pgid}' --expect-pass --out reports/gate\n"
      "  reapcheck run --scenarios .reapcheck/ --reaper cgroup   # your project's own scenarios");
  cmd->add_option("--scenario", args->scenarios,
                  "Scenario id, or a glob over the ids ('*', '?', '[...]': 'setsid-*'; quote it "
                  "from the shell) (repeatable; default: all)")
      ->type_name("ID");
  cmd->add_option("--tag", args->tags,
                  "Only the scenarios tagged TAG (repeatable: any of them; with --scenario, of "
                  "the scenarios it names); `reapcheck list` shows each scenario's tags")
      ->type_name("TAG");
  cmd->add_option("--reaper", args->reapers,
                  "Reaper: a built-in or preset id or a glob over them ('proc-*'), 'exec:CMD', "
                  "'supervise:CMD' (either as 'NAME=exec:CMD': NAME is its name in JUnit), or "
                  "@FILE holding one of those (repeatable; default: every built-in)")
      ->type_name("REAPER");
  cmd->add_flag("--presets", args->presets, "Also run every preset (tini, dumb-init, ...)");
  cmd->add_flag("--expect-pass", args->expect_pass,
                "Expect pass in every case, ignoring declared weaknesses (for a CI gate)");
  add_expectation_options(cmd, args->expectations);
  cmd->add_option("--json", args->outputs.json, "Write the results as JSON to FILE")
      ->type_name("FILE");
  cmd->add_option("--junit", args->outputs.junit, "Write JUnit XML to FILE")->type_name("FILE");
  cmd->add_option("--out", args->outputs.out_dir,
                  "Write results.json, junit.xml, matrix.txt and matrix.html into DIR (created "
                  "if missing)")
      ->type_name("DIR");
  cmd->add_option("--shard", args->shard,
                  "Run one slice of the cells, K of N, for N CI machines; `reapcheck report "
                  "--merge` joins the slices' results.json")
      ->type_name("K/N");
  add_timing_options(cmd, args->timing);
  add_keep_trace_option(cmd, args->base);
  add_memory_max_option(cmd, args->base);
  cmd->add_option("--repeat", args->repeat,
                  "Run each case N times and flag any whose verdicts differ")
      ->type_name("N")
      ->capture_default_str()
      ->check(CLI::Range(1, 10000));
  cmd->add_option("-j,--jobs", args->jobs,
                  "Cases run at once, each in a worker process (default: one per CPU)")
      ->type_name("N")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  cmd->add_option("--skip-exit-code", args->skip_exit_code,
                  "Exit with N when every case was skipped (CTest's SKIP_RETURN_CODE)")
      ->type_name("N");
  cmd->add_flag("--fail-fast", args->fail_fast,
                "Stop at the first case whose verdict is not the expected one: the cases in "
                "progress are ended, the reports hold what finished and say how many never ran; "
                "exit 1");
  cmd->add_option("--rerun-failed", args->rerun_failed,
                  "Run only the cells whose verdict was not the expected one in DIR/results.json "
                  "(a run's --out DIR); of them, those --scenario, --tag and --reaper select. "
                  "Nothing failed there: says so, runs nothing, exits 0")
      ->type_name("DIR");
  add_text_options(cmd, args->text, "; no progress lines");
  cmd->add_flag("--no-ledger", args->no_ledger,
                "Do not record the reaper's signals at the system call (to measure what the "
                "ledger costs); cases then say they lack that evidence, and stray signals and "
                "hits that no bystander notices go unseen");
  return {cmd, [args, &global] { return run(global, *args); }};
}

}  // namespace reapcheck
