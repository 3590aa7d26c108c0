// The tree stage: the agent's tree, once it is ready, as the members the reaper must kill —
// announced by a fixture, or observed in the kernel's process table for a project's own command —
// each held by a pidfd and in the state the scenario declares (transient ones gone, self-stopping
// ones stopped, freezing ones frozen).
#pragma once

#include <sys/types.h>

#include <optional>
#include <vector>

#include "harness/engine/bystanders/race.h"
#include "harness/engine/census/death_watch.h"
#include "harness/engine/stages/context.h"
#include "harness/engine/stages/set_up.h"
#include "harness/engine/tree/audit.h"
#include "harness/model/result.h"

namespace reapcheck {

struct Tree {
  pid_t spawned = 0;  // what the reaper host spawned: the agent, or the supervisor it runs under
  std::vector<Member> members;
  std::vector<ProcessRecord> records;  // the members as /proc showed them, just before the kill
  std::optional<Race> race;            // the PID-reuse race the scenario asks for, if any
  double ready_ms = 0;                 // from the spawn request until the tree was ready
  // The members' deaths, timed from the kill on; declared after them, as it must not outlive
  // their pidfds.
  DeathWatch deaths;
};

Tree build_tree(CaseContext& ctx, const Spawned& spawned);

// The reaper host's own children but the agent (or the supervisor it runs under): a reaper's
// helpers, such as the keeper holding the sibling's cgroup. They are the reaper's, not the
// tree's, and may run until the case ends.
std::vector<pid_t> reaper_helpers(const Processes& processes, pid_t host, pid_t agent);

// Transient members (a double fork's middle) must be gone, and self-stopping ones stopped,
// before the kill: the tree the reaper meets is then the same every run. The transient ones
// are then dropped: what the reaper must kill is the rest. (final_states.cpp)
void await_final_states(const CaseContext& ctx, std::vector<Member>& members);

// Waits until the case's PID namespace is quiet, so that the kill meets a tree with no fork or
// exec in flight, whatever the tree does: two looks in a row find the same processes (pid, start
// time, argv) and the same last pid, and (in a fixture's tree) none of them running — an observed
// tree has had its quiet period already. A process that keeps running yet
// forks and execs nothing passes at the set-up deadline; one that keeps forking is a setup-error.
// (quiet.cpp)
void await_quiet(const CaseContext& ctx);

}  // namespace reapcheck
