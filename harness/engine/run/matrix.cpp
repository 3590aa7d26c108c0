#include "harness/engine/run/matrix.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <numeric>

#include "harness/engine/run/case_pool.h"
#include "harness/support/interrupt.h"

namespace reapcheck {

namespace {

bool planned(const MatrixPlan& plan, const std::string& scenario, const std::string& reaper) {
  if (plan.only_cells.empty()) return true;
  return std::find(plan.only_cells.begin(), plan.only_cells.end(), std::pair{scenario, reaper}) !=
         plan.only_cells.end();
}

}  // namespace

std::vector<CaseJob> matrix_jobs(const MatrixPlan& plan) {
  std::vector<CaseJob> jobs;
  for (int i = 1; i <= plan.repeat; ++i) {
    size_t cell = 0;
    for (const auto& scenario : plan.scenarios) {
      for (const auto& reaper : plan.reapers) {
        if (!planned(plan, scenario.id, reaper)) continue;
        if (plan.shard.holds(cell++)) {
          jobs.push_back(make_job(scenario, reaper, plan.expectations, plan.expect_pass, i));
        }
      }
    }
  }
  return jobs;
}

void sort_in_plan_order(std::vector<CaseResult>& cases, const std::vector<size_t>& plan_index) {
  std::vector<size_t> by(plan_index.size());
  std::iota(by.begin(), by.end(), 0);
  std::sort(by.begin(), by.end(),
            [&](size_t a, size_t b) { return plan_index[a] < plan_index[b]; });
  std::vector<CaseResult> sorted;
  sorted.reserve(by.size());
  for (size_t i : by) sorted.push_back(std::move(cases[i]));
  cases = std::move(sorted);
}

void run_matrix(const MatrixPlan& plan, RunResult& run, const Progress& progress) {
  const auto start = std::chrono::steady_clock::now();
  run.grace_ms = static_cast<int>(plan.options.grace.count());
  run.repeat = plan.repeat;
  const std::vector<CaseJob> jobs = matrix_jobs(plan);
  const int total = static_cast<int>(jobs.size());
  std::vector<size_t> order;  // the plan index of each entry of run.cases
  auto finished = [&](size_t index, CaseResult c) {
    order.push_back(index);
    run.cases.push_back(std::move(c));
    run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const CaseResult& last = run.cases.back();
    if (progress) progress(last, static_cast<int>(run.cases.size()), total);
    if (!plan.fail_fast || last.as_expected() || !run.stopped.empty()) return true;
    run.stopped = fmt::format("--fail-fast stopped it at {} × {}: {}, expected {}", last.scenario,
                              last.reaper, to_string(last.verdict),
                              expected_text(last.expected, last.expected_also));
    return false;
  };

  try {
    run_case_pool(jobs, plan.options, plan.jobs, finished);
  } catch (const Interrupted&) {
    sort_in_plan_order(run.cases, order);
    throw;
  }
  sort_in_plan_order(run.cases, order);
}

}  // namespace reapcheck
