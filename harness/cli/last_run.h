// What a run takes from an earlier run's results.json: the cells to run again (run
// --rerun-failed DIR) and how long each cell's case took (the time left of run --out DIR).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "harness/cli/time_left.h"
#include "harness/model/result.h"

namespace reapcheck {

// DIR/results.json. UsageError naming the path when DIR holds none, or one that does not parse;
// `option` is the option that named DIR ("--rerun-failed").
RunResult read_last_run(const std::string& dir, const std::string& option);

// The cells (scenario id, reaper id as it was given: CaseResult::reaper_bytes when there are
// some) of which a case's verdict was not as expected, in the run's order, each once.
std::vector<std::pair<std::string, std::string>> failed_cells(const RunResult& run);

// The mean case_ms of each cell's cases (scenario id, reaper as reports show it).
std::map<CellKey, double> cell_times(const RunResult& run);

// cell_times() of DIR/results.json; empty when there is none, or it cannot be read.
std::map<CellKey, double> last_cell_times(const std::string& dir);

}  // namespace reapcheck
