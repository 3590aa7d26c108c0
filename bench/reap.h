// Reap latency and harness overhead, measured with real cases: each sample is a run_case() in
// a sandbox, timed by the runner's DeathWatch, exactly as the matrix times its cases.
#pragma once

#include <string>
#include <string_view>

#include "bench/phases.h"
#include "bench/result.h"
#include "harness/engine/case.h"
#include "harness/model/scenario.h"

namespace reapcheck {

// The perl fixture as a benchmark tree: "wide" is the agent and members-1 children; "chain" is
// the agent at the top of a chain `members` processes deep.
Scenario bench_scenario(std::string_view shape, int members);

// The reaper id that stands for the kernel's own limit: the cgroup reaper with no grace period
// is exactly a bare cgroup.kill and a wait for "populated 0".
inline constexpr std::string_view kBareCgroupKill = "cgroup.kill";

// Runs `runs` cases of `reaper` (a built-in id or kBareCgroupKill) on `scenario`; the sample
// holds the medians.
ReapSample measure_reap(std::string_view reaper, const Scenario& scenario, int runs,
                        CaseOptions options);

struct Overhead {
  double overhead_ms = -1;        // median of case - tree - reap: what the harness adds
  double case_ms = -1;            // median of the whole case
  std::vector<PhaseTime> phases;  // the median of each phase
};

// The harness's own cost per case on the smallest tree (the agent alone) with proc-pidfd.
Overhead measure_case_overhead(int runs, const Layout& layout);

}  // namespace reapcheck
