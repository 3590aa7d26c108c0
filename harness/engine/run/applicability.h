// Whether a case can apply to a reaper at all, from what the scenario asks and what kind of
// reaper it is: a case that cannot is reported skipped, with this reason, on every machine.
#pragma once

#include <string>

#include "harness/catalog/catalog.h"
#include "harness/model/scenario.h"

namespace reapcheck {

// Why `scenario` cannot apply to `reaper`, or empty when it can.
std::string inapplicable(const Scenario& scenario, const ReaperChoice& reaper);

}  // namespace reapcheck
