// A reaper's expectations file drafted from what a run saw (run --write-expectations): each
// weakness it showed declared, each declared skip kept. A reason an earlier file gave for the
// same verdict is kept; every other is left empty for the user to write, and an empty reason is
// refused when the file is read (expectations.h): nothing is accepted without saying why.
#pragma once

#include <string>

#include "harness/model/expectations.h"
#include "harness/model/result.h"

namespace reapcheck {

struct ExpectationsDraft {
  std::string text;        // the file, TOML
  int declared = 0;        // scenarios declared a weakness or a skip
  int to_explain = 0;      // of them, those whose reason is left to write
  std::string undeclared;  // what the file cannot declare (a setup-error), one line; or empty
};

// The draft for `reaper` (an id as run gives it; its file names it as reports do) from `run`'s
// cases, keeping the reasons of `earlier` (nullptr: none).
ExpectationsDraft draft_expectations(const RunResult& run, const std::string& reaper,
                                     const ReaperExpectations* earlier);

}  // namespace reapcheck
