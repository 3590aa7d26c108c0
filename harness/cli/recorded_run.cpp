#include "harness/cli/recorded_run.h"

#include <fmt/format.h>

#include "harness/support/interrupt.h"

namespace reapcheck {
namespace {

// Checked before the lock is taken: --out DIR is created there.
const OutputFiles& checked(const OutputFiles& outputs) {
  check_outputs(outputs);
  return outputs;
}

}  // namespace

RecordedRun::RecordedRun(const OutputFiles& outputs)
    : outputs_(checked(outputs)), lock_(outputs.out_dir) {}

bool RecordedRun::run(const MatrixPlan& plan, RunResult& run, const Progress& each) {
  const int planned = static_cast<int>(matrix_jobs(plan).size());
  journal_.emplace(outputs_.out_dir, run, planned);
  try {
    run_matrix(plan, run, [&](const CaseResult& c, int done, int total) {
      journal_->add(c);
      if (each) each(c, done, total);
    });
  } catch (const Interrupted& e) {
    run.never_run = planned - static_cast<int>(run.cases.size());  // every report says so
    run.stopped = e.what();
    fmt::print(stderr,
               "reapcheck: {}; the cases in progress were ended, nothing they started is "
               "left running; writing the {} finished cases\n",
               e.what(), run.cases.size());
    write(run);
    return false;
  }
  // What --fail-fast left (run_matrix says why in run.stopped).
  run.never_run = planned - static_cast<int>(run.cases.size());
  if (run.never_run == 0) run.stopped.clear();
  return true;
}

bool RecordedRun::write(const RunResult& run) {
  if (!write_outputs(run, outputs_)) return false;
  if (journal_) journal_->remove();
  return true;
}

}  // namespace reapcheck
