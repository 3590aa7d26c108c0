// The evidence stage: what the case's record needs besides survivors — that no member ended on
// its own, the ports still open, and the signal ledger once the kernel's signals sent so far
// have reached it.
#pragma once

#include <string>
#include <vector>

#include "harness/engine/stages/context.h"
#include "harness/engine/stages/kill.h"
#include "harness/model/result.h"

namespace reapcheck {

struct Evidence {
  std::vector<OpenPort> open_ports;
  std::vector<SignalRecord> signals;
  std::vector<std::string> missing_evidence;  // what could not be collected, and why
};

Evidence collect_evidence(CaseContext& ctx, const Kill& kill);

// A bystander's own record says only what it could see; the ledger says who sent it.
void name_senders(std::vector<BystanderHit>& hits, const std::vector<SignalRecord>& signals);

// The members that ended on their own: those gone before the reaper acted (the ledger's
// "role (pid N) ..."), and those that exited unbidden ("role (pid N, exit status S)"), each once.
std::vector<std::string> ended_on_their_own(std::vector<std::string> gone_before,
                                            const std::vector<std::string>& exited_unbidden);

}  // namespace reapcheck
