// The process-table snapshot (ProcTable::read: the BPF task iterator where available) and
// /proc's files against `ps -ax -o pid,ppid` (what the seed reaper runs) at 100, 1,000 and 5,000
// processes, and the floor for any snapshot that opens a file per process.
//
// Run it in a PID namespace of its own, so that /proc holds exactly the population:
//   unshare --pid --fork --mount-proc build/bin/snapshot_bench
// Outside one, the host's processes count too and the smaller sizes are not reached.
#include <benchmark/benchmark.h>

#include "bench/population.h"
#include "bench/snapshot.h"
#include "reaper/os/proc_table.h"

namespace {

// Times `snapshot` with a population of state.range(0) processes; the counter is what it saw.
template <typename Snapshot>
void snapshot_loop(benchmark::State& state, Snapshot snapshot) {
  reapcheck::Population population(static_cast<int>(state.range(0)));
  size_t n = 0;
  for (auto _ : state) n = snapshot();
  state.counters["processes"] = static_cast<double>(n);
}

void BM_ProcTable(benchmark::State& state) {
  snapshot_loop(state,
                [] { return reaper::ProcTable::read("/proc", reaper::Detail::stat).all().size(); });
}

void BM_ProcFilesStat(benchmark::State& state) {
  snapshot_loop(state, [] {
    return reaper::ProcTable::read_proc_files("/proc", reaper::Detail::stat).all().size();
  });
}

void BM_ProcFilesFull(benchmark::State& state) {
  snapshot_loop(state, [] {
    return reaper::ProcTable::read_proc_files("/proc", reaper::Detail::full).all().size();
  });
}

void BM_PsAxPidPpid(benchmark::State& state) {
  snapshot_loop(state, reapcheck::ps_snapshot);
}

void BM_OpenCloseFloor(benchmark::State& state) {
  snapshot_loop(state, reapcheck::open_floor_snapshot);
}

BENCHMARK(BM_ProcTable)->Arg(100)->Arg(1000)->Arg(5000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ProcFilesStat)->Arg(100)->Arg(1000)->Arg(5000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ProcFilesFull)->Arg(100)->Arg(1000)->Arg(5000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PsAxPidPpid)->Arg(100)->Arg(1000)->Arg(5000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_OpenCloseFloor)->Arg(100)->Arg(1000)->Arg(5000)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
