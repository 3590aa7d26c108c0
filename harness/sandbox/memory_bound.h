// A case's bound on memory: what its processes use and what it keeps in its tmpfs mounts (the
// kernel charges a tmpfs page to the memory cgroup of the process that wrote it). Where the memory
// controller is on cgroup v2, memory.max on the case's own group (case_cgroup.h); where it is a
// cgroup v1 controller only (a hybrid layout: Debian 12 with systemd's legacy hierarchy), a v1
// group of the case's own (MemoryGroup), which the warden joins before it clones PID 1. Each of
// the case's tmpfs mounts is also no larger than the bound (host_view.h): where neither group can
// be made (rootless, with no memory controller delegated), that is all that holds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/sandbox/owned_dir.h"

namespace reapcheck {

// A quarter of the host's memory (MemTotal), for every case alike: a case that runs away leaves
// the host three quarters of it, and a verdict never depends on how many cases run beside it.
std::uint64_t default_memory_max();

// "256 MiB", "5.9 GiB": a size as the messages give it.
std::string memory_text(std::uint64_t bytes);

// Why a case whose processes the OOM killer ended (`kills` of them) has no verdict: it went over
// its bound of `bytes`.
std::string over_memory_bound(std::uint64_t bytes, int kills);

// How many processes the kernel's OOM killer ended, from a memory.events (v2) or memory.oom_control
// (v1) text: its "oom_kill N" line.
int oom_kills_in(const std::string& events);

// The case's group in the v1 memory hierarchy, beside the harness's, with memory.limit_in_bytes
// (and memory.memsw.limit_in_bytes, no swap, where swap is accounted).
class MemoryGroup {
 public:
  // Creates the group; nothing where no v1 memory hierarchy is mounted or it is not writable
  // (rootless).
  explicit MemoryGroup(std::uint64_t limit);
  // Removes it: by then PID 1 has been reaped, so every process that was in it is gone.
  ~MemoryGroup();
  MemoryGroup(const MemoryGroup&) = delete;
  MemoryGroup& operator=(const MemoryGroup&) = delete;

  // The group's directory; empty when there is none.
  const std::string& path() const { return path_; }
  // How many of the case's processes the OOM killer has ended.
  int oom_kills() const;

  // Removes the groups of runs that died without removing theirs; returns how many.
  static int reclaim_abandoned();
  // Every run's group beside this process's, held or left: what reclaim_abandoned looks at.
  static std::vector<HostItem> list();

 private:
  std::optional<OwnedDir> dir_;
  std::string path_;
};

}  // namespace reapcheck
