// Cases run by a command that writes reports (`run`, `reproduce`), as both write them: the report
// paths checked and --out DIR locked before anything runs, each finished case in DIR's journal
// before anything reports it (a run killed outright loses none: `report --recover DIR`), the
// finished cases written on Ctrl-C, the reports written once the command has printed its own.
#pragma once

#include <optional>

#include "harness/cli/journal.h"
#include "harness/cli/outputs.h"
#include "harness/engine/run/matrix.h"

namespace reapcheck {

class RecordedRun {
 public:
  // Checks every report path of `outputs` and locks --out DIR for as long as this lives; a
  // UsageError, with nothing run, otherwise.
  explicit RecordedRun(const OutputFiles& outputs);

  // Runs `plan` into `run` (its info and notes already set: the journal starts with them),
  // handing each finished case to `each` once the journal holds it. Returns false when the run
  // was interrupted: the cases in progress were ended, and the finished ones are written (both
  // said on stderr); the command then exits with kExitInterrupted.
  bool run(const MatrixPlan& plan, RunResult& run, const Progress& each);

  // Writes the reports of `run`, then drops the journal; false, with each failure said on
  // stderr, when one could not be written (the command then exits with kExitUsage).
  bool write(const RunResult& run);

 private:
  OutputFiles outputs_;
  OutDirLock lock_;
  std::optional<Journal> journal_;
};

}  // namespace reapcheck
