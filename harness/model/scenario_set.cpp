#include "harness/model/scenario_set.h"

#include <algorithm>

#include "harness/model/toml_reader.h"

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

const BrokenScenario* ScenarioSet::find_broken(std::string_view id) const {
  auto it = std::find_if(broken.begin(), broken.end(),
                         [&](const BrokenScenario& b) { return b.id == id; });
  return it == broken.end() ? nullptr : &*it;
}

ScenarioSet load_scenario_set(const std::filesystem::path& dir,
                              const std::vector<std::string>& reapers) {
  ScenarioSet set;
  set.dir = dir;
  for (const auto& file : scenario_files(dir)) {
    try {
      set.scenarios.push_back(load_scenario(file));
    } catch (const InputError& e) {
      set.broken.push_back({file.stem().string(), e.what()});
    }
  }
  // An expectation may name a broken scenario: the file's error is the one to report.
  std::vector<std::string> known = set.ids();
  for (const auto& b : set.broken) known.push_back(b.id);
  set.expectations = load_expectations(dir / "expectations", known, reapers);
  return set;
}

}  // namespace reapcheck
