#include "harness/model/scenario_set.h"

#include <algorithm>

namespace reapcheck {

std::vector<std::string> ScenarioSet::ids() const {
  std::vector<std::string> out;
  out.reserve(scenarios.size());
  for (const auto& s : scenarios) out.push_back(s.id);
  return out;
}

const Scenario* ScenarioSet::find(std::string_view id) const {
  auto it = std::find_if(scenarios.begin(), scenarios.end(),
                         [&](const Scenario& s) { return s.id == id; });
  return it == scenarios.end() ? nullptr : &*it;
}

ScenarioSet load_scenario_set(const std::filesystem::path& dir,
                              const std::vector<std::string>& reapers) {
  ScenarioSet set;
  set.dir = dir;
  set.scenarios = load_scenarios(dir);
  set.expectations = load_expectations(dir / "expectations", set.ids(), reapers);
  return set;
}

}  // namespace reapcheck
