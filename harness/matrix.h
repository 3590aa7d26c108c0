// Running scenarios × reapers × repeats, one case at a time, reporting progress as it goes.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "case_runner.h"
#include "result.h"
#include "scenario.h"

namespace reapcheck {

struct MatrixPlan {
  std::vector<Scenario> scenarios;
  std::vector<std::string> reapers;
  int repeat = 1;
  CaseOptions options;
};

// Called after each case with its result, how many are done and the total.
using Progress = std::function<void(const CaseResult&, int done, int total)>;

// Appends each case to `run` as it finishes, so an interrupted run keeps what it measured.
void run_matrix(const MatrixPlan& plan, RunResult& run, const Progress& progress);

}  // namespace reapcheck
