// Joining results (`reapcheck report --merge`) into the result one run of the whole plan would
// have given: the slices of a sharded run, every case once, in plan order; or whole runs of one
// plan made one after another (a soak spread over days), as the repeats of one run, so that a
// cell whose verdict changed between them shows as inconsistent.
#pragma once

#include <string>
#include <vector>

#include "harness/model/result.h"

namespace reapcheck {

struct Merged {
  RunResult run;
  std::vector<std::string> missing;  // cells of the plan that no slice holds, "scenario × reaper"
};

// Throws std::runtime_error naming the input when inputs are of different runs (another plan,
// other options, another reapcheck), mix whole runs with slices, hold the same case twice, or
// (whole runs) are the same run twice.
Merged merge_runs(const std::vector<RunResult>& slices, const std::vector<std::string>& names);

}  // namespace reapcheck
