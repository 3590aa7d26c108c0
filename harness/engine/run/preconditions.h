// What stops a job before its case runs, each decided here once: a reaper no one knows, a skip
// the reaper's expectations declare, a scenario that cannot apply to the reaper
// (applicability.h), a machine that cannot run it; and what a run on the host refuses.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "harness/catalog/catalog.h"
#include "harness/engine/case.h"

namespace reapcheck {

// An observation of a case that did not run, for `reason`.
CaseObservation blocked(Blocker::Kind kind, std::string reason);

// What stops `job` before it starts (`reaper` is its resolution, none if unknown), or nothing.
std::optional<CaseObservation> precondition(const CaseJob& job,
                                            const std::optional<ReaperChoice>& reaper,
                                            const CaseOptions& options);

// The case's options with at least the grace period the reaper's own timers keep.
CaseOptions with_reapers_grace(CaseOptions options, const ReaperChoice& reaper);

}  // namespace reapcheck
