// Whether processes stayed off the CPU between two looks at them. A process's threads, and a
// tree's processes, are read one after another: a thread read as waiting may meanwhile have been
// woken by one read after it (npm's main thread by the worker that has just written its log, a
// parent by its child), so that no instant ever looked as the reads together say. The kernel
// counts, for each thread, the times it left a CPU: a thread asleep at two looks with the same
// count did not run between them, and when no thread ran, what was read between the looks held
// at one instant.
#pragma once

#include <sys/types.h>

#include <map>
#include <vector>

namespace reapcheck {

// One look at the threads of some processes.
struct ThreadRuns {
  std::map<pid_t, unsigned long long> switches;  // each thread, by id, with its count
  bool runnable = false;  // a thread was on a CPU or waiting for one (state R)
};

// The threads of `pids` now, from /proc/<pid>/task/*/status; a process that is gone adds none.
ThreadRuns thread_runs(const std::vector<pid_t>& pids);

// No thread ran between the looks `before` and `after`, taken in that order of the same
// processes: the same threads, none runnable at either, each with the count it had.
bool none_ran(const ThreadRuns& before, const ThreadRuns& after);

}  // namespace reapcheck
