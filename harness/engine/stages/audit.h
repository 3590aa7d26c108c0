// The audit stage: what the reaper left, read at the instant it reported done (its own processes
// still running, members neither dead nor dying, ports still bound) and then watched until
// nothing more can change (engine/audit.h): who survived, and which bystanders were touched.
#pragma once

#include <vector>

#include "harness/engine/stages/context.h"
#include "harness/engine/stages/kill.h"
#include "harness/engine/stages/tree.h"
#include "harness/model/result.h"

namespace reapcheck {

struct Findings {
  std::vector<ProcessRecord> reaper_left_running;  // the reaper's own, still running at return
  std::vector<LateMember> late;                    // members alive and not dying at return
  std::vector<RebindFailure> rebind_failures;      // ports still bound at return
  std::vector<ProcessRecord> survivors;
  std::vector<pid_t> ended_by_harness;  // of the survivors, the race's held ones it never reached
  double all_dead_ms = -1;
  double watched_ms = 0;
  bool busy_at_bound = false;
  std::vector<BystanderHit> bystanders_hit;
};

Findings audit_tree(CaseContext& ctx, Tree& tree, const Kill& kill);

}  // namespace reapcheck
