#include "harness/engine/stages/kill.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "reaper/os/pidfd.h"

namespace reapcheck {
namespace {

using Clock = CaseContext::Clock;

// An observed tree is what it is when the kill comes: a member that ended since it was ready
// (a short-lived helper) is no longer there to kill. Its agent must be.
void drop_ended(const CaseContext& ctx, std::vector<Member>& members) {
  for (const Member& m : members) {
    if (m.role == "agent" && reaper::pidfd_exited(m.pidfd.get())) {
      setup_failed(fmt::format(
          "the agent (pid {}) exited after it was ready, before the kill was requested{}", m.pid,
          ctx.log_tail()));
    }
  }
  std::erase_if(members, [](const Member& m) { return reaper::pidfd_exited(m.pidfd.get()); });
}

// The tree the reaper is asked to kill is the one announced: a member that is already gone
// would let a reaper that kills nothing pass, so the case is not judged at all.
// A member the reaper's side itself signalled already (a supervisor acting on the agent's
// exit) was not lost: it was killed, with the ledger's record to show it.
void require_intact(const std::vector<Member>& members, const SignalEvidence* ledger) {
  for (const Member& m : members) {
    if (ledger != nullptr && ledger->reaper_reached(m.pid)) continue;
    if (!m.pidfd || reaper::pidfd_exited(m.pidfd.get())) {
      setup_failed(fmt::format(
          "member {} (pid {}) exited before the kill was requested: a member that is meant to "
          "be gone by then is declared 'transient'",
          m.role, m.pid));
    }
  }
}

// An app force-quit: the orchestrator, which holds the reaper, is SIGKILLed, and nothing of
// the reaper's runs but what outlives it (a supervisor, a keeper, a parent-death signal).
Orchestrator::Reply kill_orchestrator(CaseContext& ctx, DeathWatch& deaths,
                                      Clock::time_point deadline) {
  Orchestrator& host = *ctx.orchestrator;
  host.force_quit();
  deaths.wait(deadline, host.pidfd());
  Orchestrator::Reply reply;
  reply.status = Orchestrator::Reply::Status::ok;
  reply.steps = {"SIGKILL to the orchestrator, the reaper host (pid " + std::to_string(host.pid()) +
                 "), which the reaper cannot answer"};
  return reply;
}

// The kill, requested as the scenario says: from the reaper (the usual way), by SIGKILLing
// the orchestrator, or by the agent's own kill command.
Orchestrator::Reply request_kill(CaseContext& ctx, Tree& tree, Clock::time_point start) {
  const auto deadline =
      start + ctx.options.grace + reaper_allowance(ctx.options, ctx.scenario.member_count());
  switch (ctx.scenario.setup.request) {
    case CaseSetup::Request::orchestrator_killed:
      return kill_orchestrator(ctx, tree.deaths, deadline);
    case CaseSetup::Request::from_agent:
      return ctx.inside.run(tree.deaths, deadline);
    case CaseSetup::Request::reaper:
      break;
  }
  const auto held_before = ctx.hold_clock.held();
  ctx.orchestrator->request_kill();
  const KillWatch with{*ctx.orchestrator, *ctx.bystander_watch, tree.deaths, ctx.ledger_or_null(),
                       *ctx.processes};
  Orchestrator::Reply reply = await_kill(with, tree.race, start, deadline);
  if (!reply.waited_out) return reply;
  // Time the ledger held the reaper's calls is time it would not have spent: the deadline moves
  // by it.
  ctx.hold_clock.wait(ctx.hold_clock.moved(deadline, held_before), [&](Clock::time_point until) {
    reply = ctx.orchestrator->wait_killed(until);
    return !reply.waited_out;
  });
  return reply;
}

}  // namespace

Kill kill_tree(CaseContext& ctx, Tree& tree) {
  watch_members(tree.members, tree.deaths);
  if (ctx.observed()) drop_ended(ctx, tree.members);
  require_intact(tree.members, ctx.signal_evidence.get());
  ctx.bystander_watch->note_attributes();      // what harm without a signal would change
  ctx.census.claim_orphans_until_kill(false);  // the reaper acts from here on
  Kill kill;
  kill.requested = Clock::now();
  kill.reply = request_kill(ctx, tree, kill.requested);
  kill.returned = Clock::now();
  return kill;
}

ReaperOutcome outcome_of(const Orchestrator::Reply& reply, std::chrono::milliseconds grace) {
  ReaperOutcome out;
  switch (reply.status) {
    case Orchestrator::Reply::Status::timeout:
      out = {ReaperOutcome::Status::timed_out, reply.error};
      break;
    case Orchestrator::Reply::Status::ok:
      break;
    default:
      out = {ReaperOutcome::Status::failed, reply.error};
  }
  if (std::find(reply.steps.begin(), reply.steps.end(), kSupervisorKilledStep) !=
      reply.steps.end()) {
    out.supervisor_killed_after_ms = static_cast<int>(grace.count());
  }
  return out;
}

}  // namespace reapcheck
