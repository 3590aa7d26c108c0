// A case, as PID 1 of its sandbox runs it: a straight sequence of stages over one context
// (stages/context.h), each recorded as a phase of the case's time.
#include "harness/engine/stages/case_body.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <memory>
#include <vector>

#include "harness/engine/stages/audit.h"
#include "harness/engine/stages/evidence.h"
#include "harness/engine/stages/kill.h"
#include "harness/engine/stages/set_up.h"
#include "harness/engine/stages/tree.h"
#include "harness/sandbox/init_reaping.h"
#include "harness/support/cpu_time.h"
#include "reaper/reaper.h"

namespace reapcheck {
namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

// Where a case's time goes, phase by phase: each mark closes the phase begun at the last one.
class Phases {
 public:
  explicit Phases(CaseObservation& r) : r_(r), last_(Clock::now()) {}
  void mark(const char* phase) {
    const auto now = Clock::now();
    r_.phases_ms.emplace_back(phase, ms_between(last_, now));
    last_ = now;
  }

 private:
  CaseObservation& r_;
  Clock::time_point last_;
};

// Each stage's findings go into `r` as soon as it returns: a later stage that finds the case
// blocked keeps what the earlier ones saw.
void run_stages(CaseContext& ctx, CaseObservation& r) {
  Phases phases(r);
  start_bystanders(ctx);
  phases.mark("bystanders");
  const Spawned spawned = spawn_agent(ctx);
  r.missing_evidence = spawned.missing_evidence;
  phases.mark("spawn");

  Tree tree = build_tree(ctx, spawned);
  r.tree_ms = tree.ready_ms;
  r.members = tree.records;
  phases.mark("tree");

  const Kill kill = kill_tree(ctx, tree);
  r.kill_ms = ms_between(kill.requested, kill.returned);
  r.reaper_steps = kill.reply.steps;
  r.reaper_cpu_ms = kill.reply.cpu_ms;
  r.reaper_children_cpu_ms = kill.reply.children_cpu_ms;
  r.reaper_outcome = outcome_of(kill.reply, ctx.options.grace);
  phases.mark("kill");

  Findings found = audit_tree(ctx, tree, kill);
  if (tree.race) r.race = tree.race->record;
  r.reaper_left_running = std::move(found.reaper_left_running);
  r.late = std::move(found.late);
  r.rebind_failures = std::move(found.rebind_failures);
  r.survivors = std::move(found.survivors);
  r.ended_by_harness = std::move(found.ended_by_harness);
  r.all_dead_ms = found.all_dead_ms;
  r.watched_ms = found.watched_ms;
  r.busy_at_bound = found.busy_at_bound;
  r.bystanders_hit = std::move(found.bystanders_hit);
  phases.mark("audit");

  Evidence evidence = collect_evidence(ctx, kill);
  r.open_ports = std::move(evidence.open_ports);
  r.signals = std::move(evidence.signals);
  r.missing_evidence.insert(r.missing_evidence.end(), evidence.missing_evidence.begin(),
                            evidence.missing_evidence.end());
  name_senders(r.bystanders_hit, r.signals);
  phases.mark("evidence");
  r.harness_cpu_ms = cpu_ms(RUSAGE_SELF);  // every thread of the runner: the ledger's too
}

// How the reaper host ended, when it has: as PID 1's reaping recorded it, or, not reaped yet,
// as its pidfd tells without reaping it.
std::optional<init::Exit> end_of(const Orchestrator& host) {
  if (auto exit = init::exit_of(host.pid())) return exit;
  siginfo_t info{};
  if (::waitid(P_PIDFD, static_cast<id_t>(host.pidfd()), &info, WEXITED | WNOWAIT | WNOHANG) != 0 ||
      info.si_pid == 0) {
    return std::nullopt;
  }
  return init::Exit{info.si_code, info.si_status};
}

// The reaper's signal calls that reached the harness's own processes (the reaper host, a
// bystander) while the case was set up, as the ledger recorded them: a supervisor or kill
// command that signals -1 kills every process it may, the reaper host and the bystanders among
// them. Without the ledger, the reaper host's end, when a signal ended it. Empty when neither.
std::string harness_hit(CaseContext& ctx) {
  constexpr size_t kArgvWidth = 60;
  std::string calls;
  for (const SignalRecord& rec :
       ctx.ledger ? ctx.ledger->records(Clock::now()) : std::vector<SignalRecord>{}) {
    if (!rec.hit_outside()) continue;
    std::vector<std::string> reached;
    for (const Party& p : rec.reached) reached.push_back(p.label());
    calls += fmt::format("{}{} {}({}, {}) → {}", calls.empty() ? "" : "; ",
                         rec.sender_text({}, kArgvWidth), rec.call, rec.target, rec.signal,
                         fmt::join(reached, ", "));
  }
  if (!calls.empty()) return "the reaper's side signalled the harness's own processes: " + calls;
  if (!ctx.host) return {};
  if (const auto exit = end_of(*ctx.host); exit && exit->code != CLD_EXITED) {
    return "the reaper host (pid " + std::to_string(ctx.host->pid()) + ") was killed by " +
           reaper::signal_name(exit->status) + ", which nothing but the reaper's side sends it";
  }
  return {};
}

// `blocker`, when the reaper's side is why the case could not go on (harness_hit()), said as
// what ended it rather than as the step that then failed.
Blocker explained(CaseContext& ctx, Blocker blocker) {
  if (blocker.kind != Blocker::Kind::setup_failed) return blocker;
  if (const std::string why = harness_hit(ctx); !why.empty()) {
    blocker.reason = why + ", so the case could not go on (" + blocker.reason + ")";
  }
  return blocker;
}

void run_explained(CaseContext& ctx, CaseObservation& r) {
  try {
    run_stages(ctx, r);
  } catch (const Blocked& b) {
    throw Blocked{explained(ctx, b.blocker)};
  } catch (const std::exception& e) {
    throw Blocked{explained(ctx, Blocker{Blocker::Kind::setup_failed, e.what()})};
  }
}

}  // namespace

CaseObservation observe_case(const Scenario& scenario, const ReaperChoice& reaper,
                             const CaseOptions& options, const std::filesystem::path& scratch) {
  CaseObservation r;
  r.settle_ms = static_cast<int>(options.settle.count());
  const std::unique_ptr<Placement> placement = placement_for(options);
  try {
    CaseContext ctx(scenario, reaper, options, *placement, scratch);
    run_explained(ctx, r);
  } catch (const Blocked& b) {
    r.blocked = b.blocker;
  } catch (const std::exception& e) {
    r.blocked = Blocker{Blocker::Kind::setup_failed, e.what()};
  }
  return r;
}

}  // namespace reapcheck
