// A case from job to judged result: one job's walk (job.h) down through the decisions before it
// runs, its attempts, and the one path every result takes to its verdict (complete_case).
#include <fmt/format.h>

#include <mutex>

#include "harness/catalog/catalog.h"
#include "harness/engine/bystanders/race.h"
#include "harness/engine/case.h"
#include "harness/engine/reaper_side/leftovers.h"
#include "harness/engine/run/case_sandbox.h"
#include "harness/engine/run/job.h"
#include "harness/engine/run/preconditions.h"
#include "harness/engine/stages/case_body.h"
#include "harness/model/judge.h"
#include "harness/model/reaper_name.h"
#include "harness/model/text.h"
#include "harness/support/interrupt.h"

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

// One attempt at the case: on the host (reproduce --no-sandbox) or as `observe` reaches its
// sandbox. What the harness fails at is the case's setup-error, never the run's end.
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

}  // namespace

std::chrono::milliseconds reaper_allowance(const CaseOptions& options, int members) {
  constexpr std::chrono::milliseconds kPerMember{20};
  return options.reaper_deadline + members * kPerMember;
}

CaseJob make_job(const Scenario& scenario, std::string reaper, const ExpectationBook& book,
                 bool expect_pass, int run) {
  CaseJob job{&scenario, std::move(reaper), run, {}, {}};
  // A labelled reaper's expectations are its label's (run --expectations).
  job.expected = book.expected(scenario.id, reaper_name(job.reaper));
  // A gate expects pass everywhere, but its failures still say why the reaper's expectations
  // declare the weakness, where they do.
  if (expect_pass) {
    job.expected.verdict = Verdict::pass;
    job.expected.also.clear();
  }
  if (const std::string* skip = book.skip_reason(scenario.id, reaper_name(job.reaper))) {
    job.declared_skip = *skip;
  }
  return job;
}

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
  r.expected_where = job.expected.where;
  const Judgement j = judge(r);
  r.verdict = j.verdict;
  r.reason = j.reason;
  return r;
}

CaseResult run_case(const CaseJob& job, const CaseOptions& options) {
  return complete_case(
      job, run_job(job, options,
                   [&](const Scenario&, const ReaperChoice& reaper, const CaseOptions& ours) {
                     return observe_sandboxed(job, reaper, ours);
                   }));
}

}  // namespace reapcheck
