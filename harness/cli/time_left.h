// How long a run has left, for its progress lines. A run's cases differ a hundredfold in time (a
// wide tree's against a plain child's), and the pool starts the longest first, so the time per
// case done so far says little of the time left (ten times too much, early in the built-in
// matrix). This estimates each case still to run: by its cell's time in the last run's results
// when there are some (scaled by how this run's cases compare with theirs), else by its
// scenario's mean so far, else by the median of the scenarios' means; and divides their sum
// among the workers. Without a last run, the first cases to finish are all of the longest
// scenarios, so until shorter ones have been seen the estimate is still too long.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace reapcheck {

// A cell of the matrix: scenario id, reaper id.
using CellKey = std::pair<std::string, std::string>;

class TimeLeft {
 public:
  // `plan`: the cell of each case the run will make (a cell once per repeat); `workers`: the
  // cases run at once; `previous`: the last run's case_ms per cell, empty when there is none.
  TimeLeft(const std::vector<CellKey>& plan, int workers, std::map<CellKey, double> previous = {});

  // A case of `cell` finished, after `case_ms`.
  void finished(const CellKey& cell, double case_ms);

  // The seconds left, or nothing before anything is known of the cases' times.
  std::optional<double> seconds() const;

 private:
  // A case of `cell`, in ms: its last run's time, scaled; its scenario's mean; the median of
  // the scenarios' means.
  std::optional<double> case_ms(const CellKey& cell) const;

  struct Mean {
    double sum = 0;
    int count = 0;
    double value() const { return sum / count; }
  };

  std::map<CellKey, int> left_;  // the cases of each cell still to finish
  int workers_;
  std::map<CellKey, double> previous_;
  std::map<std::string, Mean> by_scenario_;  // this run's cases, by scenario
  double now_ms_ = 0;   // this run's cases that have a previous time: their times,
  double then_ms_ = 0;  // and those previous times
};

}  // namespace reapcheck
