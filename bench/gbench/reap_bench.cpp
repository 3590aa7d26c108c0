// Each built-in reaper's time from kill request to all-dead, inside the sandbox, on wide trees
// of 10, 100, 1,000 and 5,000 members and a 200-deep chain; the bare cgroup.kill as the
// kernel's limit; and the harness's own overhead per case. Every iteration is a real case, so
// the times are manual: what the case runner's DeathWatch measured, not the case's wall time.
//
//   build/bin/reap_bench [--benchmark_filter=reap/cgroup/]
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <string>
#include <vector>

#include "bench/reap.h"
#include "harness/catalog/catalog.h"

namespace {

void reap(benchmark::State& state, const std::string& reaper, const std::string& shape,
          int members) {
  const reapcheck::Scenario scenario = reapcheck::bench_scenario(shape, members);
  reapcheck::CaseOptions options;
  options.ready = std::chrono::minutes(2);
  options.settle = std::chrono::seconds(10);
  for (auto _ : state) {
    const reapcheck::ReapSample s = reapcheck::measure_reap(reaper, scenario, 1, options);
    if (s.ms < 0) {
      state.SkipWithError(("not every member died: " + s.verdict).c_str());
      break;
    }
    state.SetIterationTime(s.ms / 1000);
  }
  state.counters["members"] = members;
}

void case_overhead(benchmark::State& state) {
  for (auto _ : state) {
    const reapcheck::Overhead o =
        reapcheck::measure_case_overhead(1, reapcheck::Layout::of_running_binary());
    if (o.overhead_ms < 0) {
      state.SkipWithError("the trivial case did not pass");
      break;
    }
    state.SetIterationTime(o.overhead_ms / 1000);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> reapers = {std::string(reapcheck::kBareCgroupKill)};
  for (const auto& id : reapcheck::reaper_ids(reapcheck::ReaperChoice::Origin::builtin))
    reapers.push_back(id);
  const std::vector<std::pair<std::string, int>> trees = {
      {"wide", 10}, {"wide", 100}, {"wide", 1000}, {"wide", 5000}, {"chain", 200}};
  for (const auto& [shape, members] : trees) {
    for (const auto& reaper : reapers) {
      benchmark::RegisterBenchmark(fmt::format("reap/{}/{}/{}", reaper, shape, members).c_str(),
                                   reap, reaper, shape, members)
          ->UseManualTime()
          ->Iterations(members > 1000 ? 1 : 3)
          ->Unit(benchmark::kMillisecond);
    }
  }
  benchmark::RegisterBenchmark("case_overhead", case_overhead)
      ->UseManualTime()
      ->Iterations(15)
      ->Unit(benchmark::kMillisecond);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
