#include "harness/model/merge.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <tuple>

namespace reapcheck {
namespace {

// The options that make slices parts of one run; the shard and timing differ by design.
bool same_run(const RunResult& a, const RunResult& b) {
  return a.grace_ms == b.grace_ms && a.repeat == b.repeat && a.info.version == b.info.version &&
         a.info.options == b.info.options && a.info.plan_scenarios == b.info.plan_scenarios &&
         a.info.plan_reapers == b.info.plan_reapers;
}

size_t position(const std::vector<std::string>& list, const std::string& id) {
  return static_cast<size_t>(std::find(list.begin(), list.end(), id) - list.begin());
}

void sort_in_plan_order(RunResult& run) {
  const auto& scenarios = run.info.plan_scenarios;
  const auto& reapers = run.info.plan_reapers;
  std::stable_sort(
      run.cases.begin(), run.cases.end(), [&](const CaseResult& a, const CaseResult& b) {
        return std::tuple(a.run, position(scenarios, a.scenario), position(reapers, a.reaper)) <
               std::tuple(b.run, position(scenarios, b.scenario), position(reapers, b.reaper));
      });
}

std::vector<std::string> missing_cells(const RunResult& run) {
  std::set<std::pair<std::string, std::string>> have;
  for (const auto& c : run.cases) have.emplace(c.scenario, c.reaper);
  std::vector<std::string> out;
  for (const auto& s : run.info.plan_scenarios) {
    for (const auto& r : run.info.plan_reapers) {
      if (have.count({s, r}) == 0) out.push_back(fmt::format("{} × {}", s, r));
    }
  }
  return out;
}

}  // namespace

Merged merge_runs(const std::vector<RunResult>& slices, const std::vector<std::string>& names) {
  if (slices.empty()) throw std::runtime_error("nothing to merge");
  Merged m{slices.front(), {}};
  m.run.cases.clear();
  std::set<std::tuple<std::string, std::string, int>> seen;
  std::vector<std::string> shards;
  for (size_t i = 0; i < slices.size(); ++i) {
    const RunResult& slice = slices[i];
    if (!same_run(slice, slices.front())) {
      throw std::runtime_error(fmt::format(
          "{}: not a slice of the same run as {} (its plan, options or reapcheck version differ)",
          names[i], names.front()));
    }
    for (const auto& c : slice.cases) {
      if (!seen.emplace(c.scenario, c.reaper, c.run).second) {
        throw std::runtime_error(fmt::format("{}: {} × {} (run {}) is in another slice too",
                                             names[i], c.scenario, c.reaper, c.run));
      }
      m.run.cases.push_back(c);
    }
    m.run.scenarios.insert(slice.scenarios.begin(), slice.scenarios.end());
    m.run.wall_s = std::max(m.run.wall_s, slice.wall_s);  // the slices ran side by side
    shards.push_back(slice.info.shard.empty() ? "whole" : slice.info.shard);
  }
  m.run.info.shard = fmt::format("merged from {}", fmt::join(shards, ", "));
  sort_in_plan_order(m.run);
  m.missing = missing_cells(m.run);
  return m;
}

}  // namespace reapcheck
