// `reapcheck bench`: snapshot cost, reap latency per reaper and tree size, the harness's
// overhead per case and the built-in matrix's wall time, with the targets as ratios.
#pragma once

#include <string>

#include "harness/model/scenario_set.h"
#include "harness/support/layout.h"

namespace reapcheck {

struct BenchArgs {
  bool quick = false;        // smaller trees, one run each, no matrix: a few minutes
  bool smoke = false;        // the machinery on the smallest trees, in seconds: no figure to read
  bool no_presets = false;   // the built-in matrix (with and without the ledger) only
  bool ledger_only = false;  // the built-in matrix with and without the ledger, nothing else
  std::string json_file;     // bench.json elsewhere than the output directory
  std::string out_dir = "reports/latest";       // bench.json, bench.md and bench.svg
  int jobs = 1;                                 // workers for the matrix's wall time
  Layout layout = Layout::of_running_binary();  // the CLI's, from its environment
};

// Returns the exit status: 0, or 1 when a benchmark tree was not killed or the matrix deviated.
int run_bench(const ScenarioSet& inputs, const BenchArgs& args);

}  // namespace reapcheck
