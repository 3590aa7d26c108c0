// `run --expectations FILE` and `run --write-expectations FILE`: a project's own reaper gated on
// its known weaknesses, declared in the built-ins' format (expectations.h) under the name the
// run's reports give the reaper (its label: --reaper walk=exec:CMD), and a draft of that file
// from what a run saw.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "harness/engine/run/matrix.h"
#include "harness/model/scenario_set.h"

namespace reapcheck {

struct ExpectationFiles {
  std::vector<std::string> read;  // --expectations FILE, repeatable
  std::string write;              // --write-expectations FILE
};

void add_expectation_options(CLI::App* cmd, ExpectationFiles& files);

// Adds the files' declarations to `plan`, each for the run's reaper it names, over what the
// built-in files declare for it. UsageError when they cannot apply (--expect-pass given too;
// --write-expectations for a run of more than one reaper, or of a command with no label),
// InputError for a malformed file or one for no reaper of the run.
void apply_expectation_files(const ExpectationFiles& files, const ScenarioSet& set,
                             MatrixPlan& plan);

// Writes --write-expectations' draft from `run`, and says on stderr what is left to write.
// Returns whether it was written (or none was asked for).
bool write_expectations_draft(const ExpectationFiles& files, const RunResult& run,
                              const MatrixPlan& plan);

}  // namespace reapcheck
