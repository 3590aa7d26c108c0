// The set-up stage: the case's folders, its bystanders, then the reaper host spawning the agent
// (and the sibling agent beside it), with the signal ledger serving from before the first fork.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "harness/engine/stages/context.h"

namespace reapcheck {

// The case's own set-up, then the bystanders that exist before the agent does and the channel
// the tree announces itself on. Fills ctx.path, log_fd, setup_deadline, bystanders and ready.
void start_bystanders(CaseContext& ctx);

struct Spawned {
  pid_t agent = 0;  // as the reaper host spawned it (below a supervisor: the supervisor)
  std::chrono::steady_clock::time_point requested;  // when the host was asked to spawn it
  std::vector<std::string> missing_evidence;        // what the ledger will not see, and why
};

// The reaper host, its ledger, and the agent it spawned. Fills ctx.host and ctx.ledger.
Spawned spawn_agent(CaseContext& ctx);

// The PATH the agent runs with: the user's for a project's own command, else the case's.
std::string agent_path(const CaseContext& ctx);

}  // namespace reapcheck
