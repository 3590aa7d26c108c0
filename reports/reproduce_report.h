// What `reapcheck reproduce` tells the developer whose dev server leaked, in their terms: what
// escaped and how (`detached: true` → setsid()), what still holds their port, why this way of
// killing misses it, and what to change in their launcher — then the evidence, bounded as in
// every report (evidence.h).
#pragma once

#include <string>

#include "harness/model/result.h"

namespace reapcheck {

std::string reproduce_report(const CaseResult& c, const ScenarioNotes* notes);

}  // namespace reapcheck
