// The scenarios of a directory and the reapers' expectations about them
// (DIR/*.toml and DIR/expectations/*.toml), loaded and checked against each other.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "harness/model/expectations.h"
#include "harness/model/scenario.h"

namespace reapcheck {

struct ScenarioSet {
  std::filesystem::path dir;
  std::vector<Scenario> scenarios;  // sorted by id
  ExpectationBook expectations;

  std::vector<std::string> ids() const;
  const Scenario* find(std::string_view id) const;
};

// `reapers`: the ids an expectations file may be named for. Throws InputError (file:line:col)
// for the first malformed file.
ScenarioSet load_scenario_set(const std::filesystem::path& dir,
                              const std::vector<std::string>& reapers);

}  // namespace reapcheck
