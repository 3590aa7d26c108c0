// What reapcheck runs leave on the host when they are killed before cleaning up (a CTest
// timeout, a SIGKILL), and the tracing instances kept for reuse between processes: each is
// removed once no live process holds it.
#pragma once

#include <string>

namespace reapcheck {

struct Leftovers {
  int scratch = 0;  // scratch directories in TMPDIR
  int cgroups = 0;  // cgroup areas
  int pids = 0;     // pids groups (cgroup v1)
  int traces = 0;   // tracing instances: dead runs', and kept ones no process uses

  int total() const { return scratch + cgroups + pids + traces; }
  // "3 scratch directories, 0 cgroup areas, 0 pids groups, 1 tracing instance"
  std::string describe() const;
};

// Which leftovers a caller may take: a run takes only what dead runs left; `clean` also the
// tracing instances kept for reuse (REAPCHECK_KEEP_TRACE=1) that no process uses now, which other
// runs on the host may be about to take again.
enum class Reclaim { dead_runs, and_kept_traces };

// Removes what no live run holds, and says what it removed.
Leftovers reclaim_leftovers(Reclaim what);

}  // namespace reapcheck
