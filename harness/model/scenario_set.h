// The scenarios of a directory and the reapers' expectations about them
// (DIR/*.toml and DIR/expectations/*.toml), loaded and checked against each other.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "harness/model/expectations.h"
#include "harness/model/scenario.h"

namespace reapcheck {

// A scenario file that did not parse: its id (the file's name) and the error (file:line:col).
struct BrokenScenario {
  std::string id;
  std::string error;
};

struct ScenarioSet {
  std::filesystem::path dir;
  std::vector<Scenario> scenarios;  // sorted by id
  // One bad file does not block the others: it fails the run that selects it (select_scenarios).
  std::vector<BrokenScenario> broken;
  ExpectationBook expectations;

  std::vector<std::string> ids() const;
  const Scenario* find(std::string_view id) const;
  const BrokenScenario* find_broken(std::string_view id) const;
};

// `reapers`: the ids an expectations file may be named for. Throws InputError (file:line:col)
// for a missing directory or the first malformed expectations file; a malformed scenario file
// goes into `broken`.
ScenarioSet load_scenario_set(const std::filesystem::path& dir,
                              const std::vector<std::string>& reapers);

}  // namespace reapcheck
