#include "bench/command.h"

#include <fmt/format.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <functional>

#include "bench/markdown.h"
#include "bench/plot.h"
#include "bench/reap.h"
#include "bench/snapshot.h"
#include "harness/catalog/catalog.h"
#include "harness/engine/matrix.h"
#include "harness/model/summary.h"
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

// Measures into `result` as it goes, so an interrupted run still has what it finished.
void measure(const ScenarioSet& inputs, const BenchArgs& args, BenchResult& result,
             const std::function<void(const std::string&)>& note) {
  const std::vector<int> snapshot_sizes =
      args.quick ? std::vector<int>{1000} : std::vector<int>{100, 1000, 5000};
  for (int n : snapshot_sizes) {
    const SnapshotCost c = measure_snapshot(n, args.quick ? 5 : 15);
    note(fmt::format("snapshot, {} processes: /proc {:.0f} µs, ps {:.0f} µs ({:.1f}×)", c.processes,
                     c.proc_us, c.ps_us, c.ps_us / c.proc_us));
    result.snapshots.push_back(c);
  }

  std::vector<std::string> reapers = {std::string(kBareCgroupKill)};
  for (const auto& id : reaper_ids(ReaperChoice::Origin::builtin)) reapers.push_back(id);
  std::vector<std::pair<std::string, int>> trees;
  for (int n : args.quick ? std::vector<int>{10, 100, 1000} : std::vector<int>{10, 100, 1000, 5000})
    trees.emplace_back("wide", n);
  trees.emplace_back("chain", 200);
  CaseOptions options;
  options.ready = std::chrono::minutes(2);  // 5,000 perl processes take a while to announce
  options.settle = std::chrono::seconds(10);
  for (const auto& [shape, members] : trees) {
    const Scenario scenario = bench_scenario(shape, members);
    // A single run at 5,000 members varies by hundreds of ms; the median of 3 is worth the
    // minute and a half it adds to a full run.
    const int runs = args.quick ? 1 : 3;
    for (const auto& reaper : reapers) {
      ReapSample s = measure_reap(reaper, scenario, runs, options);
      note(fmt::format(
          "reap, {} × {} {}: {} ({} run{})", reaper, shape, members,
          s.ms >= 0 ? fmt::format("all dead in {:.1f} ms", s.ms) : "NOT all dead: " + s.verdict,
          runs, runs > 1 ? "s" : ""));
      result.all_killed = result.all_killed && s.ms >= 0;  // a stray signal still killed it
      result.reap.push_back(std::move(s));
    }
  }

  const Overhead overhead = measure_case_overhead(args.quick ? 5 : 15);
  result.case_overhead_ms = overhead.overhead_ms;
  result.case_ms = overhead.case_ms;
  note(fmt::format("harness overhead per case: {:.1f} ms (whole trivial case {:.1f} ms)",
                   overhead.overhead_ms, overhead.case_ms));

  result.matrix_jobs = args.jobs;
  if (!args.quick) {
    MatrixPlan plan;
    plan.scenarios = inputs.scenarios;
    plan.expectations = inputs.expectations;
    plan.reapers = reaper_ids(ReaperChoice::Origin::builtin);
    plan.jobs = args.jobs;
    RunResult run;
    run_matrix(plan, run, nullptr);
    result.matrix_wall_s = run.wall_s;
    result.matrix_cases = static_cast<int>(run.cases.size());
    const Summary summary = summarise(run);
    for (const auto& c : run.cases) result.matrix_unexpected += c.as_expected() ? 0 : 1;
    note(fmt::format("built-in matrix: {} cases in {:.1f} s on {} workers{}", run.cases.size(),
                     run.wall_s, args.jobs, summary.ok() ? "" : " (deviations!)"));
    // The same again without the signal ledger, for its cost. Verdicts that need the ledger
    // differ then; only the time is kept.
    plan.options.ledger = false;
    RunResult bare;
    run_matrix(plan, bare, nullptr);
    result.matrix_wall_no_ledger_s = bare.wall_s;
    note(fmt::format("built-in matrix without the signal ledger: {:.1f} s", bare.wall_s));
  }
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
  return result.all_killed && result.matrix_unexpected == 0 ? kExitOk : kExitDeviation;
}

}  // namespace reapcheck
