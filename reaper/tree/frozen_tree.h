// A process tree held still: every member found by walking /proc from a root, a pidfd taken
// for each the moment it is found, SIGSTOP until a rescan finds nothing new. Shared by the
// proc-pidfd and subreaper strategies.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>

#include "reaper/os/unique_fd.h"
#include "reaper/reaper.h"

namespace reaper {

class FrozenTree {
 public:
  // The walk starts at `root`. A member root is frozen and killed with the tree; otherwise it
  // only anchors the walk (a subreaper shim, which must live on to adopt orphans).
  FrozenTree(pid_t root, int root_pidfd, bool root_is_member);

  // SIGSTOPs every member and every new child of a member until a rescan finds no new process
  // and every member has actually stopped (a signal takes effect only when its target runs).
  void freeze(KillReport& report);
  void signal_all(int sig, KillReport& report);
  // Waits until every member has exited or `timeout` passes; returns how many are left.
  int wait_all_exit(std::chrono::milliseconds timeout);

 private:
  // The pidfd is a member's identity. /proc's start time is no substitute: it counts clock
  // ticks, so a process recycled onto a member's pid within the same tick looks identical.
  struct Member {
    UniqueFd pidfd;
    bool exited() const;
  };
  bool is_live_parent(pid_t ppid) const;
  bool adopt(pid_t pid);

  pid_t root_;
  Member root_member_;
  std::map<pid_t, Member> members_;
};

// What proc-pidfd and subreaper do with a tree: freeze it; when there is a grace period,
// SIGTERM and SIGCONT every member, wait, freeze again to catch what was forked meanwhile;
// then SIGKILL every member through its pidfd and wait for them.
void freeze_and_kill(FrozenTree& tree, std::chrono::milliseconds grace, KillReport& report);

}  // namespace reaper
