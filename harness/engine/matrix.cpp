#include "harness/engine/matrix.h"

#include <algorithm>
#include <chrono>
#include <numeric>

#include "harness/engine/case_pool.h"
#include "harness/support/interrupt.h"

namespace reapcheck {

void run_matrix(const MatrixPlan& plan, RunResult& run, const Progress& progress) {
  const auto start = std::chrono::steady_clock::now();
  run.grace_ms = static_cast<int>(plan.options.grace.count());
  run.repeat = plan.repeat;
  // Repeats are the outer loop, so a run that is stopped early has covered every cell.
  std::vector<CaseJob> jobs;
  for (int i = 1; i <= plan.repeat; ++i) {
    size_t cell = 0;
    for (const auto& scenario : plan.scenarios) {
      for (const auto& reaper : plan.reapers) {
        if (plan.shard.holds(cell++)) {
          jobs.push_back(make_job(scenario, reaper, plan.expectations, plan.expect_pass, i));
        }
      }
    }
  }
  const int total = static_cast<int>(jobs.size());
  std::vector<size_t> order;  // the plan index of each entry of run.cases
  auto finished = [&](size_t index, CaseResult c) {
    order.push_back(index);
    run.cases.push_back(std::move(c));
    run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (progress) progress(run.cases.back(), static_cast<int>(run.cases.size()), total);
  };
  auto in_plan_order = [&] {
    std::vector<size_t> by(order.size());
    std::iota(by.begin(), by.end(), 0);
    std::sort(by.begin(), by.end(), [&](size_t a, size_t b) { return order[a] < order[b]; });
    std::vector<CaseResult> sorted;
    sorted.reserve(by.size());
    for (size_t i : by) sorted.push_back(std::move(run.cases[i]));
    run.cases = std::move(sorted);
  };

  try {
    run_case_pool(jobs, plan.options, plan.jobs, finished);
  } catch (const Interrupted&) {
    in_plan_order();
    throw;
  }
  in_plan_order();
}

}  // namespace reapcheck
