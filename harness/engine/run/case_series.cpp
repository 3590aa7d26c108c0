// Cases one after another, each in a sandbox made while the case before it ran.
#include "harness/engine/run/case_series.h"

#include "harness/engine/run/case_sandbox.h"
#include "harness/engine/run/job.h"
#include "harness/engine/run/preconditions.h"
#include "harness/sandbox/case_cgroup.h"
#include "harness/support/interrupt.h"

namespace reapcheck {

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
      [jobs = jobs_, options = options_,
       inside = scratch_inside(scratch)](const std::string& request) {
        const size_t index = std::stoul(request);
        const CaseJob& job = jobs[index];
        const ReaperChoice reaper = *resolve_reaper(job.reaper, options.layout);
        return observe_inside(index, *job.scenario, reaper, with_reapers_grace(options, reaper),
                              inside);
      },
      sandbox_options(options_, scratch, options_.ready, projects_of(jobs_)), running);
  return ahead;
}

CaseObservation CaseSeries::observe(size_t index, const Scenario& scenario,
                                    const CaseOptions& options, bool last) {
  const auto started = std::chrono::steady_clock::now();
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

}  // namespace reapcheck
