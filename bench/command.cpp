#include "bench/command.h"

#include <fmt/format.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>

#include "bench/ctest_matrix.h"
#include "bench/markdown.h"
#include "bench/plot.h"
#include "bench/process_costs.h"
#include "bench/reap.h"
#include "bench/snapshot.h"
#include "harness/catalog/catalog.h"
#include "harness/engine/run/matrix.h"
#include "harness/model/verdict.h"
#include "harness/support/exit_status.h"
#include "harness/support/interrupt.h"
#include "reports/file_output.h"

namespace reapcheck {
namespace {

std::string machine_line(int jobs) {
  utsname u{};
  ::uname(&u);
  return fmt::format("{} CPUs online, Linux {} ({}); matrix workers: {}",
                     ::sysconf(_SC_NPROCESSORS_ONLN), u.release, u.machine, jobs);
}

using Note = std::function<void(const std::string&)>;

// What a bench run measures, and how often: each figure is the median of its runs.
struct Sizes {
  std::vector<int> snapshots;  // process counts
  int snapshot_runs;
  std::vector<int> wide;  // the built-ins' wide trees; and one chain
  int chain;
  std::vector<int> preset_wide;
  int reap_runs;
  int overhead_runs;
  int cost_runs;
  bool matrices;
};

// --smoke is the test suite's: every step of the machinery, on trees too small for its figures
// to mean anything (the snapshot's population still needs a few processes beyond the sandbox's).
Sizes sizes_of(const BenchArgs& args) {
  if (args.smoke) return {{50}, 2, {2, 10}, 10, {5}, 1, 2, 3, false};
  if (args.quick) return {{1000}, 5, {10, 100, 1000}, 200, {100}, 1, 5, 11, false};
  return {{100, 1000, 5000}, 15, {10, 100, 1000, 5000}, 200, {100, 1000}, 3, 15, 31, true};
}

void measure_snapshots(const BenchArgs& args, BenchResult& result, const Note& note) {
  const Sizes sizes = sizes_of(args);
  for (int n : sizes.snapshots) {
    const SnapshotCost c = measure_snapshot(n, sizes.snapshot_runs, args.layout.temp);
    note(fmt::format("snapshot, {} processes: /proc {:.0f} µs, ps {:.0f} µs ({:.1f}×)", c.processes,
                     c.proc_us, c.ps_us, c.ps_us / c.proc_us));
    result.snapshots.push_back(c);
  }
}

// One reaper on one tree, noted as it is measured.
ReapSample sample_reap(const std::string& reaper, const Scenario& scenario, int runs,
                       const CaseOptions& options, const Note& note) {
  ReapSample s = measure_reap(reaper, scenario, runs, options);
  note(fmt::format(
      "reap, {} × {} {}: {} ({} run{})", reaper, s.shape, s.members,
      s.ms >= 0 ? fmt::format("all dead in {:.1f} ms", s.ms) : "NOT all dead: " + s.verdict, runs,
      runs > 1 ? "s" : ""));
  return s;
}

// Every built-in reaper, and the bare cgroup.kill, on wide trees and a deep chain.
void measure_builtin_reaps(const BenchArgs& args, BenchResult& result, const Note& note) {
  std::vector<std::string> reapers = {std::string(kBareCgroupKill)};
  for (const auto& id : reaper_ids(ReaperChoice::Origin::builtin)) reapers.push_back(id);
  const Sizes sizes = sizes_of(args);
  std::vector<std::pair<std::string, int>> trees;
  for (int n : sizes.wide) trees.emplace_back("wide", n);
  trees.emplace_back("chain", sizes.chain);
  CaseOptions options;
  options.layout = args.layout;
  options.ready = std::chrono::minutes(2);  // 5,000 perl processes take a while to announce
  options.settle = std::chrono::seconds(10);
  for (const auto& [shape, members] : trees) {
    const Scenario scenario = bench_scenario(shape, members);
    // A single run at 5,000 members varies by hundreds of ms; the median of 3 is worth the
    // minute and a half it adds to a full run.
    for (const auto& reaper : reapers) {
      ReapSample s = sample_reap(reaper, scenario, sizes.reap_runs, options, note);
      result.all_killed = result.all_killed && s.ms >= 0;  // a stray signal still killed it
      result.reap.push_back(std::move(s));
    }
  }
}

// Every preset on wide trees of 100 and 1,000 members (100 only with --quick). A preset that
// leaves members behind never reaches all-dead, which is what it gets: a short settle is enough.
void measure_preset_reaps(const BenchArgs& args, BenchResult& result, const Note& note) {
  CaseOptions options;
  options.layout = args.layout;
  options.ready = std::chrono::minutes(1);
  options.settle = std::chrono::seconds(2);
  const Sizes sizes = sizes_of(args);
  for (int members : sizes.preset_wide) {
    const Scenario scenario = bench_scenario("wide", members);
    for (const auto& reaper : reaper_ids(ReaperChoice::Origin::preset)) {
      ReapSample s = sample_reap(reaper, scenario, sizes.reap_runs, options, note);
      s.preset = true;
      result.reap.push_back(std::move(s));
    }
  }
}

// The wall time of every scenario against `reapers`, with the unexpected cells counted.
RunResult time_matrix(const ScenarioSet& inputs, std::vector<std::string> reapers,
                      const BenchArgs& args, bool ledger) {
  MatrixPlan plan;
  plan.scenarios = inputs.scenarios;
  plan.expectations = inputs.expectations;
  plan.reapers = std::move(reapers);
  plan.jobs = args.jobs;
  plan.options.layout = args.layout;
  plan.options.ledger = ledger;
  RunResult run;
  run_matrix(plan, run, nullptr);
  return run;
}

// The cells whose verdict differs from its expectation, each noted with both, and their count.
int unexpected_in(const RunResult& run, const Note& note) {
  int n = 0;
  for (const auto& c : run.cases) {
    if (c.as_expected()) continue;
    ++n;
    note(fmt::format("  unexpected: {} × {}: {}, expected {}", c.scenario, c.reaper,
                     to_string(c.verdict), to_string(c.expected)));
  }
  return n;
}

// The built-in matrix as CTest runs it, one process per scenario, its output in ctest-matrix.log
// beside bench.json.
void measure_ctest_matrix(const BenchArgs& args, BenchResult& result, const Note& note) {
  std::filesystem::create_directories(args.out_dir);
  const std::filesystem::path log = std::filesystem::path(args.out_dir) / "ctest-matrix.log";
  const CtestTiming ctest = time_ctest_matrix(args.jobs, log, args.layout);
  result.ctest_matrix_wall_s = ctest.wall_s;
  result.ctest_matrix_status = ctest.status;
  result.ctest_matrix_not_measured = ctest.why_not;
  if (!ctest.wall_s) {
    note("ctest -L matrix: not measured: " + ctest.why_not);
    return;
  }
  note(fmt::format(
      "ctest -j{} -L matrix: {:.1f} s{}", args.jobs, *ctest.wall_s,
      ctest.status == 0 ? "" : fmt::format(" (exit {}: see {})", ctest.status, log.string())));
}

// The built-in matrix with and without the signal ledger, then the --presets matrix (the
// built-ins and every preset), each timed.
void measure_matrices(const ScenarioSet& inputs, const BenchArgs& args, BenchResult& result,
                      const Note& note) {
  const std::vector<std::string> builtins = reaper_ids(ReaperChoice::Origin::builtin);
  const RunResult run = time_matrix(inputs, builtins, args, true);
  result.matrix_wall_s = run.wall_s;
  result.matrix_cases = static_cast<int>(run.cases.size());
  result.matrix_unexpected = unexpected_in(run, note);
  result.leak_excess_ms = worst_leak_excess(run);
  result.leak_watch_ms = worst_leak_watch(run);
  result.reaper_cpu_percent = worst_reaper_cpu_share(run);
  result.matrix_phases_ms = phase_times(run.cases, PhaseStat::mean);
  note(fmt::format("built-in matrix: {} cases in {:.1f} s on {} workers{}", run.cases.size(),
                   run.wall_s, args.jobs, result.matrix_unexpected == 0 ? "" : " (deviations!)"));
  // The same again without the signal ledger, for its cost. Verdicts that need the ledger
  // differ then; only the time is kept.
  const RunResult no_ledger = time_matrix(inputs, builtins, args, false);
  result.matrix_wall_no_ledger_s = no_ledger.wall_s;
  // The ledger's interception of the reapers' signal calls is the harness's: the floor is taken
  // without it.
  result.matrix_kill_s = phases_total_ms(no_ledger.cases, {"kill"}) / 1000;
  note(fmt::format("built-in matrix without the signal ledger: {:.1f} s",
                   *result.matrix_wall_no_ledger_s));
  measure_ctest_matrix(args, result, note);
  if (args.no_presets) {
    note("--presets matrix: skipped (--no-presets)");
    return;
  }
  std::vector<std::string> all = builtins;
  for (auto& id : reaper_ids(ReaperChoice::Origin::preset)) all.push_back(std::move(id));
  const RunResult presets = time_matrix(inputs, all, args, true);
  result.presets_matrix_wall_s = presets.wall_s;
  result.presets_matrix_cases = static_cast<int>(presets.cases.size());
  result.presets_matrix_unexpected = unexpected_in(presets, note);
  result.presets_matrix_kill_s = phases_total_ms(presets.cases, {"kill"}) / 1000;
  note(fmt::format("--presets matrix: {} cases in {:.1f} s on {} workers{}", presets.cases.size(),
                   presets.wall_s, args.jobs,
                   result.presets_matrix_unexpected == 0 ? "" : " (deviations!)"));
}

// Measures into `result` as it goes, so an interrupted run still has what it finished.
void measure(const ScenarioSet& inputs, const BenchArgs& args, BenchResult& result,
             const Note& note) {
  if (args.ledger_only) {
    BenchArgs matrix = args;
    matrix.no_presets = true;
    result.matrix_jobs = args.jobs;
    measure_matrices(inputs, matrix, result, note);
    return;
  }
  // First, on a quiet machine: after the trees of thousands the kernel is still freeing them,
  // which doubled the trivial case's interpreter start in one run (12.6 ms, then 25.2 ms).
  const Sizes sizes = sizes_of(args);
  const Overhead overhead = measure_case_overhead(sizes.overhead_runs, args.layout);
  result.case_overhead_ms = overhead.overhead_ms;
  result.case_ms = overhead.case_ms;
  result.case_phases_ms = overhead.phases;
  note(fmt::format("harness overhead per case: {:.1f} ms (whole trivial case {:.1f} ms)",
                   overhead.overhead_ms, overhead.case_ms));
  const ProcessCosts& costs = result.process_costs = measure_process_costs(sizes.cost_runs);
  note(fmt::format("this machine: fork {:.2f} ms, spawn and exec {:.2f} ms, perl -e 0 {:.2f} ms",
                   costs.fork_ms, costs.spawn_ms, costs.perl_ms));
  measure_snapshots(args, result, note);
  measure_builtin_reaps(args, result, note);
  measure_preset_reaps(args, result, note);
  result.matrix_jobs = args.jobs;
  if (sizes.matrices) measure_matrices(inputs, args, result, note);
}

}  // namespace

int run_bench(const ScenarioSet& inputs, const BenchArgs& args) {
  watch_interrupts();
  const auto started = std::chrono::steady_clock::now();
  auto note = [&](const std::string& line) {
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    fmt::print(stderr, "[{:5.1f}s] {}\n", s, line);
  };

  BenchResult result;
  result.quick = args.quick;
  result.smoke = args.smoke;
  result.machine = machine_line(args.jobs);
  int interrupted = 0;
  try {
    measure(inputs, args, result, note);
  } catch (const Interrupted& e) {
    interrupted = e.signal();
    result.interrupted = true;
  }

  evaluate_targets(result);
  const std::string markdown = bench_markdown(result);
  const std::filesystem::path dir(args.out_dir);
  std::filesystem::create_directories(dir);  // --out names a folder to create
  const nlohmann::json j = result;
  const std::filesystem::path json_file =
      args.json_file.empty() ? dir / "bench.json" : std::filesystem::path(args.json_file);
  write_text_file(json_file, j.dump(2) + "\n");
  write_text_file(dir / "bench.md", markdown);
  write_text_file(dir / "bench.svg", bench_plot_svg(result));
  fmt::print("{}", markdown);
  fmt::print(stderr, "Wrote {}, {} and {}\n", json_file.string(), (dir / "bench.md").string(),
             (dir / "bench.svg").string());
  if (interrupted != 0) {
    fmt::print(stderr, "reapcheck: {}; the figures written are those measured before it\n",
               Interrupted(interrupted).what());
    return kExitInterrupted;
  }
  return result.all_killed && result.matrix_unexpected == 0 &&
                 result.presets_matrix_unexpected == 0 && result.ctest_matrix_status == 0
             ? kExitOk
             : kExitDeviation;
}

}  // namespace reapcheck
