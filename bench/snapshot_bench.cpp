// The /proc snapshot against `ps -ax -o pid,ppid` (what the seed reaper runs), at a process
// count set by REAPCHECK_BENCH_PROCS (default 1,000 processes in the table).
//
// Extra processes are children of this benchmark that wait on a pipe; they are killed through
// pidfds and reaped when it ends.
#include <benchmark/benchmark.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "reaper/pidfd.h"
#include "reaper/proc_table.h"

namespace {

class Population {
 public:
  explicit Population(int target) {
    reaper::Pipe hold = reaper::make_pipe();
    int present =
        static_cast<int>(reaper::ProcTable::read("/proc", reaper::Detail::stat).all().size());
    for (int i = present; i < target; ++i) {
      pid_t p = ::fork();
      if (p == 0) {
        hold.write.reset();
        char c;
        (void)!::read(hold.read.get(), &c, 1);  // returns when the benchmark closes its end
        ::_exit(0);
      }
      if (auto fd = reaper::pidfd_open(p)) children_.push_back({p, std::move(*fd)});
    }
    hold_ = std::move(hold.write);
  }
  ~Population() {
    hold_.reset();
    for (auto& c : children_) {
      reaper::pidfd_signal(c.fd.get(), SIGKILL);
      ::waitpid(c.pid, nullptr, 0);
    }
  }

 private:
  struct Child {
    pid_t pid;
    reaper::UniqueFd fd;
  };
  std::vector<Child> children_;
  reaper::UniqueFd hold_;
};

int target_procs() {
  const char* v = std::getenv("REAPCHECK_BENCH_PROCS");
  return v != nullptr ? std::atoi(v) : 1000;
}

Population& population() {
  static Population p(target_procs());
  return p;
}

void BM_ProcSnapshotStat(benchmark::State& state) {
  population();
  size_t n = 0;
  for (auto _ : state) n = reaper::ProcTable::read("/proc", reaper::Detail::stat).all().size();
  state.counters["processes"] = static_cast<double>(n);
}

void BM_ProcSnapshotFull(benchmark::State& state) {
  population();
  size_t n = 0;
  for (auto _ : state) n = reaper::ProcTable::read("/proc", reaper::Detail::full).all().size();
  state.counters["processes"] = static_cast<double>(n);
}

void BM_PsAxPidPpid(benchmark::State& state) {
  population();
  size_t n = 0;
  for (auto _ : state) {
    FILE* ps = ::popen("ps -ax -o pid,ppid", "r");
    char line[256];
    n = 0;
    while (std::fgets(line, sizeof line, ps) != nullptr) {
      std::istringstream in(line);
      pid_t pid, ppid;
      if (in >> pid >> ppid) ++n;
    }
    ::pclose(ps);
  }
  state.counters["processes"] = static_cast<double>(n);
}

BENCHMARK(BM_ProcSnapshotStat)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ProcSnapshotFull)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PsAxPidPpid)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
