// What the reports teach about a scenario beside its verdicts: the scenario's description, how
// each of its members leaves the agent's reach (from the tree's own keys, or the [agent.escapes]
// a command agent's scenario declares), and which reapers of the catalogue are expected to pass
// it — so a failing cell says what to try instead.
#pragma once

#include <string>
#include <vector>

#include "harness/model/expectations.h"
#include "harness/model/result.h"
#include "harness/model/scenario.h"

namespace reapcheck {

// A reaper the reports may suggest: its id and its technique in one line.
struct CatalogueEntry {
  std::string id;
  std::string technique;
};

// One line per member that escapes or resists, "escaped: calls setsid(), so ...".
std::vector<std::string> escape_notes(const Scenario& scenario);

// The catalogue with the reapers declaring the fewest weaknesses over every scenario first, ties
// in catalogue order.
std::vector<CatalogueEntry> most_robust_first(std::vector<CatalogueEntry> catalogue,
                                              const ExpectationBook& book);

// The notes for `scenario`. Reapers expected to pass it (and not declared inapplicable) are
// listed with the most robust first: the fewest declared weaknesses over every scenario, ties in
// catalogue order.
ScenarioNotes scenario_notes(const Scenario& scenario, const ExpectationBook& book,
                             const std::vector<CatalogueEntry>& catalogue);

}  // namespace reapcheck
