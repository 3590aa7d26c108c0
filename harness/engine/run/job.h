// One job's walk down to its observation, the same for a case run alone and for a series: the
// reaper resolved (catalog.h), what stops it before it starts (preconditions.h), the options as
// the reaper needs them, then its attempts, a race's retried while its window did not open
// (race.h), and the time it all took.
#pragma once

#include <functional>

#include "harness/catalog/catalog.h"
#include "harness/engine/case.h"

namespace reapcheck {

// How a case reaches its sandbox: one made for it (run_case), or one a series made ahead.
using Observe =
    std::function<CaseObservation(const Scenario&, const ReaperChoice&, const CaseOptions&)>;

CaseObservation run_job(const CaseJob& job, const CaseOptions& options, const Observe& observe);

}  // namespace reapcheck
