#include "harness/cli/time_left.h"

#include <algorithm>
#include <vector>

namespace reapcheck {

TimeLeft::TimeLeft(const std::vector<CellKey>& plan, int workers,
                   std::map<CellKey, double> previous)
    : workers_(std::max(workers, 1)), previous_(std::move(previous)) {
  for (const auto& cell : plan) ++left_[cell];
}

void TimeLeft::finished(const CellKey& cell, double case_ms) {
  if (auto it = left_.find(cell); it != left_.end() && --it->second == 0) left_.erase(it);
  Mean& mean = by_scenario_[cell.first];
  mean.sum += case_ms;
  ++mean.count;
  if (auto it = previous_.find(cell); it != previous_.end()) {
    now_ms_ += case_ms;
    then_ms_ += it->second;
  }
}

std::optional<double> TimeLeft::case_ms(const CellKey& cell) const {
  if (auto it = previous_.find(cell); it != previous_.end()) {
    // This machine may be busier or quieter than it was: as much as the cases seen say.
    const double scale = then_ms_ > 0 ? now_ms_ / then_ms_ : 1.0;
    return it->second * scale;
  }
  if (auto it = by_scenario_.find(cell.first); it != by_scenario_.end()) return it->second.value();
  if (by_scenario_.empty()) return std::nullopt;
  // The median, not the mean: the pool starts the longest cases first, so the scenarios seen
  // early are the few that take seconds (a wide tree, a node server), and a mean of them would
  // take every scenario still to come for one of those.
  std::vector<double> means;
  means.reserve(by_scenario_.size());
  for (const auto& [scenario, mean] : by_scenario_) means.push_back(mean.value());
  std::sort(means.begin(), means.end());
  const size_t middle = means.size() / 2;
  return means.size() % 2 == 1 ? means[middle] : (means[middle - 1] + means[middle]) / 2;
}

std::optional<double> TimeLeft::seconds() const {
  double ms = 0;
  int cases = 0;
  for (const auto& [cell, count] : left_) {
    const std::optional<double> each = case_ms(cell);
    if (!each) return std::nullopt;
    ms += *each * count;
    cases += count;
  }
  // The last few cases run side by side on fewer workers than the run has.
  const int at_once = std::max(1, std::min(workers_, cases));
  return ms / at_once / 1000;
}

}  // namespace reapcheck
