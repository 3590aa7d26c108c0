// What reapcheck runs leave on the host when they are killed before cleaning up (a CTest
// timeout, a SIGKILL), and the tracing instances kept for reuse between processes: each is
// removed once no live process holds it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "harness/sandbox/host_item.h"

namespace reapcheck {

struct Leftovers {
  int scratch = 0;  // scratch directories in the temporary folder (Layout::temp)
  int cgroups = 0;  // cgroup areas
  int pids = 0;     // pids groups (cgroup v1)
  int memory = 0;   // memory groups (cgroup v1)
  int traces = 0;   // tracing instances: dead runs', and kept ones no process uses

  int total() const { return scratch + cgroups + pids + memory + traces; }
  // "3 scratch directories, 0 cgroup areas, 0 pids groups, 0 memory groups, 1 tracing instance"
  std::string describe() const;
};

// Which leftovers a caller may take: a run takes only what dead runs left; `clean` also the
// tracing instances kept for reuse (run --keep-trace) that no process uses now, which other
// runs on the host may be about to take again.
enum class Reclaim { dead_runs, and_kept_traces };

// Removes what no live run holds (scratch directories: those in `temp`), and says what it removed.
Leftovers reclaim_leftovers(Reclaim what, const std::filesystem::path& temp);

// One line of `reapcheck clean --list`: what it is ("scratch", "cgroup", "pids", "memory",
// "tracing") and the item.
struct HeldItem {
  std::string kind;
  HostItem item;
};

// Everything reapcheck runs hold on the host now, held or left, where reclaim_leftovers looks and
// by the same names: scratch directories (those in `temp`), cgroup areas, pids groups, memory
// groups, tracing instances.
std::vector<HeldItem> list_leftovers(const std::filesystem::path& temp);

// Whether `held` belongs to the run whose pid is `run`: named for it (folders, groups and
// tracing instances carry the run's pid, a worker's too: owned_dir.h), or held by a process
// below it while that lives (a kept tracing instance a case worker took). Once the run is dead,
// a kept instance is no run's: its holder is gone too.
bool held_by_run(const HeldItem& held, pid_t run);

// "scratch 4242 alive /tmp/reapcheck-4242-Ab12Cd": KIND RUN-PID STATE PATH, the path last (it may
// hold spaces), RUN-PID "-" for a kept tracing instance no process holds.
std::string held_line(const HeldItem& held);

}  // namespace reapcheck
