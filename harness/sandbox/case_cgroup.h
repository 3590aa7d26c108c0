// A case's own cgroup, delegated to the sandbox's root: created in the run's cgroup area, owned
// (the directory, cgroup.procs, cgroup.subtree_control, cgroup.threads: the kernel's delegation
// rules) by the id the sandbox's root has on the host, with pids.max bounding a fork bomb where
// the pids controller is on cgroup v2, and memory.max bounding its memory where the memory
// controller is (memory_bound.h). The case sees it, through its cgroup namespace and a
// bind mount, as the root of the hierarchy; the host's groups above it are out of its reach.
#pragma once

#include <cstdint>
#include <string>

#include "harness/sandbox/sandbox_ids.h"

namespace reapcheck {

class CaseCgroup {
 public:
  // Creates the group in `area`; `owner` is the host's view of the sandbox root's ids;
  // `memory_max`, in bytes, its memory.max.
  CaseCgroup(const std::string& area, SandboxIds owner, std::uint64_t memory_max);
  // Kills what is left inside, waits for it to empty and removes it with its sub-groups.
  ~CaseCgroup();
  CaseCgroup(const CaseCgroup&) = delete;
  CaseCgroup& operator=(const CaseCgroup&) = delete;

  const std::string& path() const { return path_; }
  // Whether pids.max bounds it (false where pids is not a cgroup v2 controller here).
  bool pids_bounded() const { return pids_bounded_; }
  // Whether memory.max bounds it (false where memory is not a cgroup v2 controller here).
  bool memory_bounded() const { return memory_bounded_; }
  // How many of its processes the OOM killer has ended (memory.oom.group: all of them at once).
  int oom_kills() const;

 private:
  std::string path_;
  bool pids_bounded_ = false;
  bool memory_bounded_ = false;
};

// Room for the largest scenario (1,000 members and their fork storms) with margin.
inline constexpr int kCasePidsMax = 8192;

}  // namespace reapcheck
