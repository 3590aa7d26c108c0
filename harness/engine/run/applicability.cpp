#include "harness/engine/run/applicability.h"

namespace reapcheck {

std::string inapplicable(const Scenario& scenario, const ReaperChoice& reaper) {
  if (scenario.setup.request == CaseSetup::Request::from_agent && reaper.command.empty()) {
    return "does not apply: the kill is run from inside the tree, by the agent on itself, and this "
           "reaper is no "
           "command a program can run: a built-in strategy or a supervisor works from the "
           "orchestrator, outside the tree";
  }
  return {};
}

}  // namespace reapcheck
