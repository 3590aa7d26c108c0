#include "harness/engine/stages/context.h"

#include "harness/engine/tree/observed_tree.h"
#include "harness/model/text.h"
#include "harness/support/layout.h"

namespace reapcheck {
namespace {

std::set<std::string> as_set(const std::vector<std::string>& roles) {
  return {roles.begin(), roles.end()};
}

}  // namespace

void setup_failed(std::string reason) {
  throw Blocked{{Blocker::Kind::setup_failed, std::move(reason)}};
}

CaseContext::CaseContext(const Scenario& scenario, const ReaperChoice& reaper,
                         const CaseOptions& options, const Placement& placement,
                         std::filesystem::path scratch)
    : scenario(scenario),
      reaper(reaper),
      options(options),
      placement(placement),
      scratch(std::move(scratch)),
      worktree(observed() ? scenario.agent->dir : this->scratch / "worktree"),
      log(this->scratch / "fixture.log"),
      transient(as_set(scenario.transient_roles())),
      reaped_transient(as_set(scenario.reaped_transient_roles())),
      stopped(as_set(scenario.stopped_roles())),
      frozen(as_set(scenario.frozen_roles())) {}

// Only the end is read: a command may have written megabytes before it failed. A terminal's
// carriage return before a newline (the output of an agent on a PTY) is not part of its line.
std::string CaseContext::log_tail() const {
  std::string s = read_tail(log, 2000);
  for (size_t at = s.find("\r\n"); at != std::string::npos; at = s.find("\r\n", at)) {
    s.erase(at, 1);
  }
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  if (s.empty()) return "";
  return std::string(observed() ? kOutputEndMark : kFixtureLogMark) + printable(s);
}

std::string CaseContext::program_ran() const {
  if (!observed()) return "";
  const std::string& program = scenario.agent->command.front();
  const std::string path = program.find('/') != std::string::npos
                               ? (scenario.agent->dir / program).lexically_normal().string()
                               : find_in_path(program, options.agent_path);
  return path.empty() ? "" : " (it ran " + printable(path) + ")";
}

}  // namespace reapcheck
