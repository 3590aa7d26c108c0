// The kill stage: the tree, intact and held, is handed to the reaper, which is asked to kill it
// the way the scenario says (the usual request, a force-quit of the orchestrator, or the agent's
// own kill command); the members' deaths are timed from here on.
#pragma once

#include <chrono>

#include "harness/engine/reaper_side/orchestrator.h"
#include "harness/engine/stages/context.h"
#include "harness/engine/stages/tree.h"
#include "harness/model/result.h"

namespace reapcheck {

struct Kill {
  Orchestrator::Reply reply;
  std::chrono::steady_clock::time_point requested;
  std::chrono::steady_clock::time_point returned;  // when the reaper reported done
};

Kill kill_tree(CaseContext& ctx, Tree& tree);

// How the reaper's kill ended, from its host's reply; `grace`, the case's, is the period a
// supervise: reaper's supervisor outlived when the reply says it was SIGKILLed.
ReaperOutcome outcome_of(const Orchestrator::Reply& reply,
                         std::chrono::milliseconds grace = std::chrono::milliseconds(0));

}  // namespace reapcheck
