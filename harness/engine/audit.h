// The audit: after the reaper reports done, who in the sandbox is still alive?
#pragma once

#include <sys/types.h>

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "harness/engine/death_watch.h"
#include "harness/model/result.h"
#include "reaper/os/proc_table.h"
#include "reaper/os/unique_fd.h"

namespace reapcheck {

// An announced member, held by pidfd from the moment it announced itself.
struct Member {
  pid_t pid = 0;
  std::string role;
  reaper::UniqueFd pidfd;
  int watch_slot = -1;  // in the case's DeathWatch; -1 when it was gone before the kill
};

// Puts every member that still has a pidfd under `watch`.
void watch_members(std::vector<Member>& members, DeathWatch& watch);

struct AuditResult {
  std::vector<ProcessRecord> survivors;
  double all_dead_ms = -1;  // from `since` to the last death; -1 when something survived
};

// Waits, until `settle` has passed, for every member in `watch` to die, then scans the sandbox's
// /proc for any other live process not in `outside` (the runner, the reaper host, bystanders): a
// process the tree started without announcing it is still part of the tree. A process is dead
// when its pidfd says its whole thread group has exited, not when /proc shows its leader as Z.
// `sessions`, when given, limits the /proc scan to processes in those sessions: outside a
// sandbox, not everything alive belongs to the tree.
AuditResult audit(std::vector<Member>& members, DeathWatch& watch, const std::set<pid_t>& outside,
                  std::chrono::steady_clock::time_point since, std::chrono::milliseconds settle,
                  const std::set<pid_t>* sessions = nullptr);

// The process is on its way out: a fatal signal is pending (the kernel turns a fatal signal into
// SIGKILL on every thread as it is sent), or one of its threads is exiting. Read from
// /proc/<pid>/task/*/; false when the process is gone.
bool dying(pid_t pid);

// A /proc entry as the result model records it.
ProcessRecord record_of(const reaper::ProcInfo& info, std::string role);

}  // namespace reapcheck
