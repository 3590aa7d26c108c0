// The process-table snapshot (ProcTable::read: the BPF task iterator where available) and
// /proc's files against `ps -ax -o pid,ppid` (what the seed reaper runs) at 100, 1,000 and 5,000
// processes, and the floor for any snapshot that opens a file per process.
//
// Run it in a PID namespace of its own, so that /proc holds exactly the population:
//   unshare --pid --fork --mount-proc build/bin/snapshot_bench
// Outside one, the host's processes count too and the smaller sizes are not reached.
#include <benchmark/benchmark.h>

#include "harness/bench_population.h"
#include "harness/bench_snapshot.h"
#include "reaper/proc_table.h"

namespace {

void BM_ProcSnapshotStat(benchmark::State& state) {
  reapcheck::Population population(static_cast<int>(state.range(0)));
  size_t n = 0;
  for (auto _ : state) n = reaper::ProcTable::read("/proc", reaper::Detail::stat).all().size();
  state.counters["processes"] = static_cast<double>(n);
}

void BM_ProcFilesStat(benchmark::State& state) {
  reapcheck::Population population(static_cast<int>(state.range(0)));
  size_t n = 0;
  for (auto _ : state) {
    n = reaper::ProcTable::read_proc_files("/proc", reaper::Detail::stat).all().size();
  }
  state.counters["processes"] = static_cast<double>(n);
}

void BM_ProcFilesFull(benchmark::State& state) {
  reapcheck::Population population(static_cast<int>(state.range(0)));
  size_t n = 0;
  for (auto _ : state) {
    n = reaper::ProcTable::read_proc_files("/proc", reaper::Detail::full).all().size();
  }
  state.counters["processes"] = static_cast<double>(n);
}

void BM_PsAxPidPpid(benchmark::State& state) {
  reapcheck::Population population(static_cast<int>(state.range(0)));
  size_t n = 0;
  for (auto _ : state) n = reapcheck::ps_snapshot();
  state.counters["processes"] = static_cast<double>(n);
}

void BM_OpenCloseFloor(benchmark::State& state) {
  reapcheck::Population population(static_cast<int>(state.range(0)));
  size_t n = 0;
  for (auto _ : state) n = reapcheck::open_floor_snapshot();
  state.counters["processes"] = static_cast<double>(n);
}

BENCHMARK(BM_ProcSnapshotStat)->Arg(100)->Arg(1000)->Arg(5000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ProcFilesStat)->Arg(100)->Arg(1000)->Arg(5000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ProcFilesFull)->Arg(100)->Arg(1000)->Arg(5000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PsAxPidPpid)->Arg(100)->Arg(1000)->Arg(5000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_OpenCloseFloor)->Arg(100)->Arg(1000)->Arg(5000)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
