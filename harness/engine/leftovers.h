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

// Removes what no live run holds, and says what it removed.
Leftovers reclaim_leftovers();

}  // namespace reapcheck
