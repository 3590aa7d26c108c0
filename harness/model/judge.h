// The one place a case's verdict is decided: from its observations, and nothing else.
#pragma once

#include <string>

#include "harness/model/result.h"
#include "harness/model/verdict.h"

namespace reapcheck {

struct Judgement {
  Verdict verdict = Verdict::setup_error;
  std::string reason;
};

// A case that never reached the kill is skipped or a setup-error, as its blocker says.
// Otherwise the worst verdict the evidence supports wins (see Verdict's order): a signal from the
// reaper's side that reached a process outside the tree (the ledger) or a bystander that saw one;
// a reaper that timed out or failed; survivors or open ports; a signal to a pid or group where
// nothing was; a member alive and not dying when the reaper returned, or a port of the tree that
// could not be bound again then (the restart check: EADDRINUSE for a restarting server). A race
// whose window never opened proves nothing, so an otherwise clean case is skipped; else pass.
// Members' own signals never count against the reaper.
// A failing verdict's reason starts with the SIGKILL of a supervise: reaper's supervisor at the
// end of the grace period, when there was one (ReaperOutcome::supervisor_killed).
Judgement judge(const Observations& seen);

}  // namespace reapcheck
