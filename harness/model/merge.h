// Joining the slices of a sharded run (`reapcheck report --merge`) into the result one run of the
// whole plan would have given: every case once, in plan order.
#pragma once

#include <string>
#include <vector>

#include "harness/model/result.h"

namespace reapcheck {

struct Merged {
  RunResult run;
  std::vector<std::string> missing;  // cells of the plan that no slice holds, "scenario × reaper"
};

// Throws std::runtime_error naming the slice when slices are of different runs (another plan,
// other options, another reapcheck) or hold the same case twice.
Merged merge_runs(const std::vector<RunResult>& slices, const std::vector<std::string>& names);

}  // namespace reapcheck
