// A case from job to judged result: the sandbox around observe_case(), the retry of a race whose
// window did not open, and the one path every result takes to its verdict (complete_case).
#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <nlohmann/json.hpp>
#include <span>

#include "harness/catalog/catalog.h"
#include "harness/engine/bystanders/race.h"
#include "harness/engine/case.h"
#include "harness/engine/reaper_side/case_environment.h"
#include "harness/engine/reaper_side/leftovers.h"
#include "harness/engine/run/applicability.h"
#include "harness/engine/run/case_series.h"
#include "harness/engine/run/observation_message.h"
#include "harness/engine/stages/case_body.h"
#include "harness/engine/tree/audit.h"
#include "harness/model/judge.h"
#include "harness/model/result_json.h"
#include "harness/model/text.h"
#include "harness/sandbox/case_cgroup.h"
#include "harness/sandbox/host_view.h"
#include "harness/sandbox/sandbox.h"
#include "harness/support/interrupt.h"
#include "reaper/os/cgroup_fs.h"

namespace reapcheck {
namespace {

using Clock = std::chrono::steady_clock;

// How many times a race case runs before a window that never opened is reported as a skip.
constexpr int kRaceAttempts = 3;

// What killed runs left behind, and tracing instances kept for reuse that no run holds. Once
// per process, before its first case.
void reclaim_before_first_case(const std::filesystem::path& temp) {
  if (const Leftovers removed = reclaim_leftovers(Reclaim::dead_runs, temp); removed.total() > 0) {
    fmt::print(stderr, "reapcheck: removed what earlier runs left and no run holds: {}\n",
               removed.describe());
  }
}

CaseObservation blocked(Blocker::Kind kind, std::string reason) {
  CaseObservation r;
  r.blocked = Blocker{kind, std::move(reason)};
  return r;
}

}  // namespace

std::chrono::milliseconds reaper_allowance(const CaseOptions& options, int members) {
  constexpr std::chrono::milliseconds kPerMember{20};
  return options.reaper_deadline + members * kPerMember;
}

namespace {

// The backstop against a case that hangs. The readiness deadline is renewed by each member the
// tree announces (a slow machine is not a stalled tree), so the tree's share grows with its size.
std::chrono::milliseconds sandbox_deadline(const Scenario& scenario, const CaseOptions& options) {
  constexpr int kMembersPerReadyPeriod = 100;
  const int periods = 1 + scenario.member_count() / kMembersPerReadyPeriod;
  const int after_ms = scenario.agent ? scenario.agent->ready.after_ms : 0;
  return options.ready * periods + std::chrono::milliseconds(after_ms) + options.grace +
         reaper_allowance(options, scenario.member_count()) + options.settle + kDyingBound +
         std::chrono::milliseconds(5000);
}

// What PID 1 runs: the case, its observation as the message for `job`.
std::string observe_inside(size_t job, const Scenario& scenario, const ReaperChoice& reaper,
                           const CaseOptions& options, const std::filesystem::path& scratch) {
  // The case's delegated cgroup is, through its cgroup namespace, the root of what it sees.
  CaseOptions inside = options;
  if (!inside.cgroup_parent.empty()) inside.cgroup_parent = reaper::cgroup_home();
  return write_observation_message({job, observe_case(scenario, reaper, inside, scratch)});
}

// The project folders the jobs' observed agents run in: every sandbox of a series lays them all,
// since it is made before it knows its case.
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
  }
  return {deadline,
          scratch,
          std::move(visible),
          options.layout.shared,
          options.cgroup_parent,
          options.ledger,
          options.keep_trace,
          std::move(projects)};
}

// The case's observation from what its sandbox gave back for `job`; the time since `started` not
// spent in the case's own phases is the sandbox's.
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

// How a case reaches its sandbox: one made for it (run_case), or one a series made ahead.
using Observe =
    std::function<CaseObservation(const Scenario&, const ReaperChoice&, const CaseOptions&)>;

CaseObservation observe_sandboxed(const CaseJob& job, const ReaperChoice& reaper,
                                  const CaseOptions& options) {
  const auto started = Clock::now();
  ScratchDir scratch(options.layout.temp);
  const Scenario& scenario = *job.scenario;
  const SandboxOutcome outcome =
      run_in_sandbox([&] { return observe_inside(0, scenario, reaper, options, scratch.path()); },
                     sandbox_options(options, scratch.path(), sandbox_deadline(scenario, options),
                                     projects_of({&job, 1})));
  return observation_of(outcome, 0, started);
}

CaseObservation attempt(const Scenario& scenario, const ReaperChoice& reaper,
                        const CaseOptions& options, const Observe& observe) {
  try {
    if (options.on_host) {
      const std::filesystem::path& kept = options.on_host->scratch;
      if (!kept.empty()) return observe_case(scenario, reaper, options, kept);
      ScratchDir scratch(options.layout.temp);
      return observe_case(scenario, reaper, options, scratch.path());
    }
    return observe(scenario, reaper, options);
  } catch (const Interrupted&) {
    throw;
  } catch (const std::exception& e) {
    return blocked(Blocker::Kind::setup_failed, std::string("the harness failed: ") + e.what());
  }
}

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

// What stops the case before it starts, if anything.
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

// The case's options with at least the grace period the reaper's own timers keep.
CaseOptions with_reapers_grace(CaseOptions options, const ReaperChoice& reaper) {
  options.grace = std::max(options.grace, reaper.min_grace);
  return options;
}

}  // namespace

CaseJob make_job(const Scenario& scenario, std::string reaper, const ExpectationBook& book,
                 bool expect_pass, int run) {
  CaseJob job{&scenario, std::move(reaper), run, {}, {}};
  job.expected = book.expected(scenario.id, job.reaper);
  // A gate expects pass everywhere, but its failures still say why the reaper's expectations
  // declare the weakness, where they do.
  if (expect_pass) {
    job.expected.verdict = Verdict::pass;
    job.expected.also.clear();
  }
  if (const std::string* skip = book.skip_reason(scenario.id, job.reaper)) {
    job.declared_skip = *skip;
  }
  return job;
}

CaseResult complete_case(const CaseJob& job, CaseObservation observed) {
  CaseResult r;
  static_cast<CaseObservation&>(r) = std::move(observed);
  r.scenario = job.scenario->id;
  r.tags = job.scenario->tags;
  r.reaper = printable(job.reaper);
  if (r.reaper != job.reaper) r.reaper_bytes = job.reaper;
  r.run = job.run;
  r.expected = job.expected.verdict;
  r.expected_also = job.expected.also;
  r.expected_reason = job.expected.reason;
  const Judgement j = judge(r);
  r.verdict = j.verdict;
  r.reason = j.reason;
  return r;
}

namespace {

CaseObservation run_job(const CaseJob& job, const CaseOptions& options, const Observe& observe) {
  const auto started = Clock::now();
  static std::once_flag reclaimed;
  std::call_once(reclaimed, reclaim_before_first_case, options.layout.temp);
  const std::optional<ReaperChoice> reaper = resolve_reaper(job.reaper, options.layout);
  CaseObservation observed;
  if (auto stop = precondition(job, reaper, options)) {
    observed = std::move(*stop);
  } else {
    const CaseOptions ours = with_reapers_grace(options, *reaper);
    observed = retry_unopened_race([&] { return attempt(*job.scenario, *reaper, ours, observe); },
                                   kRaceAttempts);
  }
  observed.case_ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  return observed;
}

}  // namespace

CaseResult run_case(const CaseJob& job, const CaseOptions& options) {
  return complete_case(
      job, run_job(job, options,
                   [&](const Scenario&, const ReaperChoice& reaper, const CaseOptions& ours) {
                     return observe_sandboxed(job, reaper, ours);
                   }));
}

struct CaseSeries::Ahead {
  explicit Ahead(const std::filesystem::path& temp) : scratch(temp) {}
  ScratchDir scratch;
  std::optional<Sandbox> sandbox;
};

CaseSeries::CaseSeries(std::span<const CaseJob> jobs, CaseOptions options)
    : jobs_(jobs), options_(std::move(options)), pids_(kCasePidsMax) {}

CaseSeries::~CaseSeries() = default;

CaseObservation CaseSeries::run(size_t index, bool last) {
  return run_job(jobs_[index], options_,
                 [&](const Scenario& scenario, const ReaperChoice&, const CaseOptions& options) {
                   return observe(index, scenario, options, last);
                 });
}

std::unique_ptr<CaseSeries::Ahead> CaseSeries::make_ahead(Sandbox* running) const {
  auto ahead = std::make_unique<Ahead>(options_.layout.temp);
  const std::filesystem::path scratch = ahead->scratch.path();
  // Runs in PID 1, forked now: it finds its job in `jobs_`, which the series keeps unchanged,
  // and its options as run_job() makes them from the series' own.
  ahead->sandbox.emplace(
      [jobs = jobs_, options = options_, scratch](const std::string& request) {
        const size_t index = std::stoul(request);
        const CaseJob& job = jobs[index];
        const ReaperChoice reaper = *resolve_reaper(job.reaper, options.layout);
        return observe_inside(index, *job.scenario, reaper, with_reapers_grace(options, reaper),
                              scratch);
      },
      sandbox_options(options_, scratch, options_.ready, projects_of(jobs_)), running);
  return ahead;
}

CaseObservation CaseSeries::observe(size_t index, const Scenario& scenario,
                                    const CaseOptions& options, bool last) {
  const auto started = Clock::now();
  std::unique_ptr<Ahead> ahead = std::move(ahead_);
  if (!ahead) ahead = make_ahead();
  const SandboxOutcome outcome =
      ahead->sandbox->run(std::to_string(index), sandbox_deadline(scenario, options), [&] {
        if (last) return;
        try {
          ahead_ = make_ahead(&*ahead->sandbox);
        } catch (const Interrupted&) {
          throw;
        } catch (const std::exception&) {
          // The next case makes its own, and says why it cannot.
        }
      });
  return observation_of(outcome, index, started);
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
