// What `reapcheck reproduce` tells the developer whose dev server leaked, in their terms: what
// escaped and how (`detached: true` → setsid()), what still holds their port, why this way of
// killing misses it, and what to change in their launcher — then the evidence, bounded as in
// every report (evidence.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/model/notes.h"
#include "harness/model/result.h"

namespace reapcheck {

// `listed_in`: the results.json written beside, which lists what the report cuts short; empty
// when none is (reproduce without --out), which the report then says.
std::string reproduce_report(const CaseResult& c, const ScenarioNotes* notes,
                             std::string_view listed_in = {});

// How a survivor got out of its agent's reach, read from its ids against the agent's.
// `signalled`: whether a signal of the reaper's side reached it, when the ledger ran.
struct Escape {
  enum class Kind { session, group, orphan, resisted, unfound } kind;
  std::string how;
};
Escape observed_escape(const ProcessRecord& survivor, const ProcessRecord& agent,
                       std::optional<bool> signalled);
// Whether a signal of the reaper's side reached `p`; empty when the case had no ledger.
std::optional<bool> reached(const CaseResult& c, const ProcessRecord& p);

// After a run of several reapers on one agent: each reaper's verdict, those that passed in this
// run, and what to change, from how the survivors escaped and which ports stayed open; the
// technique suggested is the first of `catalogue` that passed.
std::string reproduce_summary(const std::vector<CaseResult>& results,
                              const std::vector<CatalogueEntry>& catalogue);

}  // namespace reapcheck
