// The audit: after the reaper reports done, who in the sandbox is still alive?
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "harness/engine/census/census.h"
#include "harness/engine/census/death_watch.h"
#include "harness/engine/census/processes.h"
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
  double watched_ms = 0;    // from the start of the audit until its outcome was certain
  // Members still dying or busy when `settle` plus `dying_bound` had passed: the survivors'
  // message names the bound (--settle) that ended the wait.
  bool busy_at_bound = false;
};

// How much longer than `settle` a member that is dying, or busy, by then is waited for.
inline constexpr std::chrono::seconds kDyingBound{kDyingBoundSeconds};

// What the audit knows besides the members.
struct AuditScope {
  std::chrono::steady_clock::time_point since;  // the kill request
  std::chrono::milliseconds settle{1000};       // the longest it watches
  std::set<pid_t> outside;  // the runner, the reaper host, bystanders: never of the tree
  // Outside a sandbox, not everything alive belongs to the tree: when set, only processes in
  // these sessions are.
  const std::set<pid_t>* sessions = nullptr;
  // The reaper's own processes still running when it returned (a detached helper, the sibling
  // agent's supervisor): while one is neither gone nor idle for good, anything may still happen
  // to the tree. Pids, each with its pidfd.
  std::vector<std::pair<pid_t, int>> reaper_left_running;
  // Reads the kernel's fork events traced so far into the census (the ledger's barrier), for a
  // process whose birth is not known yet; empty where there are none.
  std::function<void()> learn_births;
  // How much longer than `settle` it watches those dying when `settle` passed.
  std::chrono::milliseconds dying_bound = kDyingBound;
  // Where the watch reads the processes: the kernel, or a unit test's.
  const Processes* processes = &kernel_processes();
};

// Watches until the outcome is certain, then says who survived. A member that is dead is done;
// one that is dying or busy (activity.h) is waited for; one that is alive, idle and not dying
// will not die by itself — once every process of the tree is so, and none of the reaper's is
// left running, nothing more can happen and the audit ends, with no further wait. `settle` bounds
// the whole, except for members dying or busy when it passes: they are waited for up to
// `dying_bound` more, and the audit ends when none is left dying or busy. Who survives is decided
// when `settle` passes: a member then alive, idle and not dying is a survivor even if it dies
// meanwhile; a busy one that goes idle rather than die survives too. Processes the
// tree started without announcing them (found in the sandbox's /proc, outside `outside`) are of the
// tree too. A process is dead when its pidfd says its whole thread group has exited, not when /proc
// shows its leader as Z.
AuditResult audit(std::vector<Member>& members, DeathWatch& watch, const Census& census,
                  const AuditScope& scope);

// A /proc entry as the result model records it.
ProcessRecord record_of(const reaper::ProcInfo& info, std::string role);

}  // namespace reapcheck
