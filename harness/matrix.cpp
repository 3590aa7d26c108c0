#include "matrix.h"

#include <chrono>

#include "cgroup_area.h"

namespace reapcheck {

void run_matrix(const MatrixPlan& plan, RunResult& run, const Progress& progress) {
  const auto start = std::chrono::steady_clock::now();
  run.grace_ms = static_cast<int>(plan.options.grace.count());
  run.repeat = plan.repeat;
  CgroupArea cgroups;
  const int total = static_cast<int>(plan.scenarios.size() * plan.reapers.size()) * plan.repeat;
  // Repeats are the outer loop, so a run that is stopped early has covered every cell.
  for (int i = 1; i <= plan.repeat; ++i) {
    for (const auto& scenario : plan.scenarios) {
      for (const auto& reaper : plan.reapers) {
        CaseResult c = run_case(scenario, reaper, plan.options);
        cgroups.sweep();
        c.run = i;
        run.cases.push_back(std::move(c));
        run.wall_s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (progress) progress(run.cases.back(), static_cast<int>(run.cases.size()), total);
      }
    }
  }
}

}  // namespace reapcheck
