// Running scenarios × reapers × repeats, one case at a time or several at once, reporting
// progress as it goes.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "harness/engine/case.h"
#include "harness/model/expectations.h"
#include "harness/model/result.h"
#include "harness/model/scenario.h"
#include "harness/model/shard.h"

namespace reapcheck {

struct MatrixPlan {
  std::vector<Scenario> scenarios;
  std::vector<std::string> reapers;
  ExpectationBook expectations;
  bool expect_pass = false;  // ignore declared weaknesses: a CI gate expects pass everywhere
  int repeat = 1;
  int jobs = 1;  // cases at once, each in a worker process of its own (case_pool.h)
  Shard shard;   // the slice of the cells this run makes (all of them by default)
  // The cells (scenario id, reaper id) to run, when not every one of scenarios × reapers:
  // `run --rerun-failed`'s. Empty: all of them.
  std::vector<std::pair<std::string, std::string>> only_cells;
  // Stop at the first case whose verdict is not as expected (CaseResult::as_expected()): the
  // cases in progress are ended as an interrupt ends them, no other starts.
  bool fail_fast = false;
  CaseOptions options;
};

// The jobs of `plan` that its shard holds (of its only_cells, when it names some), in plan order:
// repeats the outer loop (so a run that is stopped early has covered every cell), then
// scenarios, then reapers.
std::vector<CaseJob> matrix_jobs(const MatrixPlan& plan);

// Puts `cases`, where cases[i] is the result of job plan_index[i], in plan order.
void sort_in_plan_order(std::vector<CaseResult>& cases, const std::vector<size_t>& plan_index);

// Called after each case with its result, how many are done and the total.
using Progress = std::function<void(const CaseResult&, int done, int total)>;

// Appends each case to `run` as it finishes, so an interrupted run keeps what it measured; at
// the end (interrupted or not) the cases are in plan order, whatever order they finished in.
// A run that `plan.fail_fast` stopped says why in `run.stopped`.
void run_matrix(const MatrixPlan& plan, RunResult& run, const Progress& progress);

}  // namespace reapcheck
