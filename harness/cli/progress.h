// The progress lines of a command that runs cases (`run`, `reproduce`), on stderr: on a terminal
// one status line rewritten in place (done, current, elapsed, time left), a surprise kept on
// screen; otherwise one plain line per finished case, for logs, with the same elapsed and time
// left.
#pragma once

#include <chrono>
#include <map>
#include <memory>

#include "harness/cli/time_left.h"
#include "harness/engine/run/matrix.h"
#include "harness/model/result.h"

namespace reapcheck {

class ProgressLines {
 public:
  // `numbered`: each case names its run (#2), as under --repeat; `quiet`: nothing is printed.
  // The time left is time_left.h's, from `plan`'s cases and the last run's times of its cells.
  ProgressLines(bool quiet, bool numbered, const MatrixPlan& plan,
                std::map<CellKey, double> last_times = {});

  // After each case: its line, with how many are done of `total`.
  void operator()(const CaseResult& c, int done, int total) const;

  // On a terminal, erases the status line, so that what the command prints next on a terminal
  // begins a line of its own (the next case draws the status line again); otherwise nothing.
  void make_room() const;

 private:
  bool quiet_;
  bool numbered_;
  bool live_;
  std::chrono::steady_clock::time_point started_;
  std::shared_ptr<TimeLeft> estimate_;  // shared: a Progress callback is copied
};

}  // namespace reapcheck
