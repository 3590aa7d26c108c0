#pragma once
// The order in which a pool hands its jobs to workers: the longest first.
#include <cstddef>
#include <vector>

#include "harness/engine/case.h"

namespace reapcheck {

// The indices of `jobs`, the cases expected to take longest first (ties in plan order). With the
// plan's scenario-major order a run ended on wide-tree's seven cells, seconds each, one worker
// busy and the other idle; handed out first, they overlap the many short cases instead. Only
// the order of starting changes: results are still reported, and sharded, in plan order.
std::vector<size_t> dispatch_order(const std::vector<CaseJob>& jobs);

}  // namespace reapcheck
