#include "harness/model/merge.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <tuple>

#include "harness/model/shard.h"

namespace reapcheck {
namespace {

// The options that make inputs parts of one run; the shard and timing differ by design, and
// whole runs joined as repeats may each have been repeated a different number of times.
bool same_run(const RunResult& a, const RunResult& b, bool as_repeats) {
  return a.grace_ms == b.grace_ms && (as_repeats || a.repeat == b.repeat) &&
         a.info.version == b.info.version && a.info.options == b.info.options &&
         a.info.plan_scenarios == b.info.plan_scenarios &&
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
  // A slice says which (K/N); anything else covers the plan: a run, or slices already merged.
  const auto whole = [](const RunResult& r) { return !parse_shard(r.info.shard); };
  const bool as_repeats = std::all_of(slices.begin(), slices.end(), whole);
  Merged m{slices.front(), {}};
  m.run.cases.clear();
  m.run.repeat = as_repeats ? 0 : slices.front().repeat;
  m.run.wall_s = 0;
  m.run.never_run = 0;
  std::set<std::tuple<std::string, std::string, int>> seen;
  std::set<std::pair<std::string, double>> runs;  // when and how long: a whole run given twice
  std::vector<std::string> shards;
  for (size_t i = 0; i < slices.size(); ++i) {
    const RunResult& slice = slices[i];
    if (!as_repeats && whole(slice)) {
      throw std::runtime_error(fmt::format(
          "{}: a whole run, merged with slices of a sharded one (merge whole runs only with "
          "whole runs, as repeats, and slices only with slices)",
          names[i]));
    }
    if (!same_run(slice, slices.front(), as_repeats)) {
      throw std::runtime_error(fmt::format(
          "{}: not a {} of the same run as {} (its plan, options or reapcheck version differ)",
          names[i], as_repeats ? "run" : "slice", names.front()));
    }
    if (as_repeats && !runs.emplace(slice.info.started, slice.wall_s).second) {
      throw std::runtime_error(
          fmt::format("{}: the same run as an earlier input (started {}, {:.1f} s)", names[i],
                      slice.info.started, slice.wall_s));
    }
    // Whole runs follow one another: their repeats are numbered after the runs before them.
    const int offset = as_repeats ? m.run.repeat : 0;
    for (const auto& c : slice.cases) {
      if (!seen.emplace(c.scenario, c.reaper, offset + c.run).second) {
        throw std::runtime_error(fmt::format("{}: {} × {} (run {}) is in another slice too",
                                             names[i], c.scenario, c.reaper, c.run));
      }
      m.run.cases.push_back(c);
      m.run.cases.back().run = offset + c.run;
    }
    m.run.scenarios.insert(slice.scenarios.begin(), slice.scenarios.end());
    m.run.never_run += slice.never_run;  // a part that is incomplete leaves the whole so
    if (as_repeats) {
      m.run.repeat += slice.repeat;
      m.run.wall_s += slice.wall_s;  // one after another
    } else {
      m.run.wall_s = std::max(m.run.wall_s, slice.wall_s);  // side by side
    }
    shards.push_back(as_repeats ? fmt::format("{} ({}×)", names[i], slice.repeat)
                                : slice.info.shard);
  }
  m.run.info.shard = fmt::format("merged from {}", fmt::join(shards, ", "));
  sort_in_plan_order(m.run);
  m.missing = missing_cells(m.run);
  return m;
}

}  // namespace reapcheck
