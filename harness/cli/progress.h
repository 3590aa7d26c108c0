// The progress lines of a command that runs cases (`run`, `reproduce`), on stderr: on a terminal
// one status line rewritten in place (done, current, elapsed, time left), a surprise kept on
// screen; otherwise one plain line per finished case, for logs.
#pragma once

#include <chrono>

#include "harness/model/result.h"

namespace reapcheck {

class ProgressLines {
 public:
  // `numbered`: each case names its run (#2), as under --repeat; `quiet`: nothing is printed.
  ProgressLines(bool quiet, bool numbered);

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
};

}  // namespace reapcheck
