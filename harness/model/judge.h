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
// Otherwise the worst verdict the evidence supports wins (see Verdict's order): a bystander hit,
// then a reaper that timed out or failed, then survivors or open ports; a race whose window
// never opened proves nothing, so an otherwise clean case is skipped; else pass.
Judgement judge(const Observations& seen);

}  // namespace reapcheck
