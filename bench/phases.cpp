#include "bench/phases.h"

#include <algorithm>
#include <numeric>

#include "bench/result.h"

namespace reapcheck {

std::vector<PhaseTime> phase_times(const std::vector<CaseResult>& cases, PhaseStat stat) {
  std::vector<std::pair<std::string, std::vector<double>>> seen;  // in first-recorded order
  for (const CaseResult& c : cases) {
    if (c.blocked) continue;
    for (const auto& [phase, ms] : c.phases_ms) {
      auto it = std::find_if(seen.begin(), seen.end(),
                             [&, &name = phase](const auto& s) { return s.first == name; });
      if (it == seen.end()) it = seen.insert(seen.end(), {phase, {}});
      it->second.push_back(ms);
    }
  }
  std::vector<PhaseTime> out;
  for (auto& [phase, values] : seen) {
    const double ms = stat == PhaseStat::median
                          ? median(values)
                          : std::accumulate(values.begin(), values.end(), 0.0) /
                                static_cast<double>(values.size());
    out.push_back({phase, ms});
  }
  return out;
}

double phases_ms(const CaseResult& c, std::initializer_list<std::string_view> phases) {
  double ms = 0;
  for (const auto& [phase, t] : c.phases_ms) {
    if (std::find(phases.begin(), phases.end(), phase) != phases.end()) ms += t;
  }
  return ms;
}

double phases_total_ms(const std::vector<CaseResult>& cases,
                       std::initializer_list<std::string_view> phases) {
  return std::accumulate(cases.begin(), cases.end(), 0.0, [&](double sum, const CaseResult& c) {
    return sum + phases_ms(c, phases);
  });
}

std::string phase_meaning(const std::string& phase) {
  static const std::pair<const char*, const char*> kMeanings[] = {
      {"bystanders", "the harness: starting the bystanders"},
      {"spawn", "the fixture's start: the reaper host, the agent's and the sibling's interpreters"},
      {"tree", "the tree: members forking and announcing (the kernel's fork cost)"},
      {"kill", "the reaper: its work, its grace timers and the kernel's teardown"},
      {"audit", "the settle: watching the tree until nothing more can happen to it"},
      {"evidence", "the harness: ports, the signal ledger's record"},
      {"sandbox", "the harness: the sandbox's set-up and teardown, the result's way back"},
  };
  for (const auto& [name, meaning] : kMeanings) {
    if (phase == name) return meaning;
  }
  return {};
}

}  // namespace reapcheck
