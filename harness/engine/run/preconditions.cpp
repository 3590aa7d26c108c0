// What stops a job before its case runs: one function per decision, in the order a job meets
// them.
#include "harness/engine/run/preconditions.h"

#include <algorithm>

#include "harness/engine/reaper_side/case_environment.h"
#include "harness/engine/run/applicability.h"

namespace reapcheck {

CaseObservation blocked(Blocker::Kind kind, std::string reason) {
  CaseObservation r;
  r.blocked = Blocker{kind, std::move(reason)};
  return r;
}

namespace {

// Why this machine cannot run the case, or empty.
std::string unsupported_here(const Scenario& scenario, const ReaperChoice& reaper,
                             const CaseOptions& options) {
  if (std::string missing = missing_need(reaper.needs, options.layout); !missing.empty())
    return missing;
  if (scenario.uses_cgroups() && options.cgroup_parent.empty()) {
    return "its members move into cgroups of their own, and this machine has no writable cgroup "
           "v2 hierarchy to hold them";
  }
  return missing_environment(scenario.setup, options.layout);
}

}  // namespace

std::optional<CaseObservation> precondition(const CaseJob& job,
                                            const std::optional<ReaperChoice>& reaper,
                                            const CaseOptions& options) {
  if (!reaper) {
    return blocked(Blocker::Kind::setup_failed, "unknown reaper '" + job.reaper + "'");
  }
  if (!job.declared_skip.empty()) return blocked(Blocker::Kind::declared_skip, job.declared_skip);
  if (std::string why = inapplicable(*job.scenario, *reaper); !why.empty()) {
    return blocked(Blocker::Kind::unsupported, why);
  }
  if (std::string why = unsupported_here(*job.scenario, *reaper, options); !why.empty()) {
    return blocked(Blocker::Kind::unsupported, why);
  }
  return std::nullopt;
}

CaseOptions with_reapers_grace(CaseOptions options, const ReaperChoice& reaper) {
  options.grace = std::max(options.grace, reaper.min_grace);
  return options;
}

std::string host_run_refusal(const Scenario& scenario, std::string_view reaper_id) {
  if (scenario.race() != nullptr) {
    return "scenario '" + scenario.id +
           "' places decoys on recycled pids, which only the sandbox may do";
  }
  if (scenario.uses_cgroups()) {
    return "scenario '" + scenario.id +
           "' moves members into cgroups, which only the sandbox may do";
  }
  if (scenario.agent && scenario.agent->observed()) {
    return "a project's own command runs only in the sandbox, where its folder is copy-on-write "
           "and its processes are told from yours";
  }
  const auto reaper = resolve_reaper(reaper_id, Layout{});  // its origin only
  if (reaper && reaper->origin == ReaperChoice::Origin::command) {
    return "an external reaper (" + std::string(reaper_id) + ") runs only inside the sandbox";
  }
  return {};
}

}  // namespace reapcheck
