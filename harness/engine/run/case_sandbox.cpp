// A case's way into its sandbox and back.
#include "harness/engine/run/case_sandbox.h"

#include <fmt/format.h>

#include <algorithm>

#include "harness/engine/run/observation_message.h"
#include "harness/engine/run/preconditions.h"
#include "harness/engine/stages/case_body.h"
#include "harness/engine/tree/audit.h"
#include "harness/sandbox/host_view.h"
#include "reaper/os/cgroup_fs.h"

namespace reapcheck {

using Clock = std::chrono::steady_clock;

// The readiness deadline is renewed by each member the tree announces (a slow machine is not a
// stalled tree), so the tree's share grows with its size.
std::chrono::milliseconds sandbox_deadline(const Scenario& scenario, const CaseOptions& options) {
  constexpr int kMembersPerReadyPeriod = 100;
  const int periods = 1 + scenario.member_count() / kMembersPerReadyPeriod;
  const int after_ms = scenario.agent ? scenario.agent->ready.after_ms : 0;
  return options.ready * periods + std::chrono::milliseconds(after_ms) + options.grace +
         reaper_allowance(options, scenario.member_count()) + options.settle + kDyingBound +
         std::chrono::milliseconds(5000);
}

std::string observe_inside(size_t job, const Scenario& scenario, const ReaperChoice& reaper,
                           const CaseOptions& options, const std::filesystem::path& scratch) {
  // The case's delegated cgroup is, through its cgroup namespace, the root of what it sees.
  CaseOptions inside = options;
  if (!inside.cgroup_parent.empty()) inside.cgroup_parent = reaper::cgroup_home();
  return write_observation_message({job, observe_case(scenario, reaper, inside, scratch)});
}

std::vector<std::filesystem::path> projects_of(std::span<const CaseJob> jobs) {
  std::vector<std::filesystem::path> out;
  for (const CaseJob& job : jobs) {
    const auto& agent = job.scenario->agent;
    if (agent && agent->observed() && std::find(out.begin(), out.end(), agent->dir) == out.end()) {
      out.push_back(agent->dir);
    }
  }
  return out;
}

SandboxOptions sandbox_options(const CaseOptions& options, const std::filesystem::path& scratch,
                               std::chrono::milliseconds deadline,
                               std::vector<std::filesystem::path> projects) {
  std::vector<std::filesystem::path> visible = options.layout.harness_paths();
  // A project's own command runs with the user's PATH: what it finds there under a closed home
  // is put back, read-only, as the user sees it.
  if (!projects.empty()) {
    for (auto& p : path_put_back(options.agent_path)) visible.push_back(std::move(p));
    for (const std::string& home : options.agent_homes) {
      visible.emplace_back(home.substr(home.find('=') + 1));
    }
  }
  return {deadline,
          scratch,
          std::move(visible),
          options.layout.shared,
          options.cgroup_parent,
          options.ledger,
          options.keep_trace,
          std::move(projects),
          options.memory_max};
}

CaseObservation observation_of(const SandboxOutcome& outcome, size_t job,
                               Clock::time_point started) {
  switch (outcome.status) {
    case SandboxOutcome::Status::finished: {
      ObservationMessage message = read_observation_message(outcome.output);
      if (message.job != job) {
        throw std::runtime_error(
            fmt::format("the sandbox of job {} answered for job {}", job, message.job));
      }
      CaseObservation r = std::move(message.observed);
      double inside = 0;
      for (const auto& [phase, ms] : r.phases_ms) inside += ms;
      r.phases_ms.emplace_back(
          "sandbox",
          std::chrono::duration<double, std::milli>(Clock::now() - started).count() - inside);
      return r;
    }
    case SandboxOutcome::Status::unavailable:
      return blocked(Blocker::Kind::unsupported, outcome.output);
    default:
      return blocked(Blocker::Kind::setup_failed, outcome.output);
  }
}

CaseObservation observe_sandboxed(const CaseJob& job, const ReaperChoice& reaper,
                                  const CaseOptions& options) {
  const auto started = Clock::now();
  ScratchDir scratch(options.layout.temp);
  const Scenario& scenario = *job.scenario;
  const SandboxOutcome outcome = run_in_sandbox(
      [&] { return observe_inside(0, scenario, reaper, options, scratch_inside(scratch.path())); },
      sandbox_options(options, scratch.path(), sandbox_deadline(scenario, options),
                      projects_of({&job, 1})));
  return observation_of(outcome, 0, started);
}

}  // namespace reapcheck
