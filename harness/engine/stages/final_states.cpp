// The members' declared states before the kill: part of the tree stage (tree.h).
#include <signal.h>

#include <string>

#include "harness/engine/census/cgroup_state.h"
#include "harness/engine/stages/tree.h"
#include "reaper/os/backoff.h"
#include "reaper/os/deadline.h"
#include "reaper/os/pidfd.h"
#include "reaper/os/proc_table.h"

namespace reapcheck {
namespace {

using Clock = CaseContext::Clock;

// `pid` reaps its children: PID 1 does, and so does a process that catches SIGCHLD or blocks
// it to read it from a signalfd (catatonit). A supervisor that has not yet reaped the agent may
// still forward a kill it would not forward a moment later.
bool reaps(const Processes& processes, pid_t pid) {
  if (pid == 1) return true;
  const auto has_sigchld = [&](const char* field) {
    const std::string mask = processes.status_field(pid, field);
    return !mask.empty() && ((std::stoull(mask, nullptr, 16) >> (SIGCHLD - 1)) & 1) != 0;
  };
  return has_sigchld("SigCgt") || has_sigchld("SigBlk");
}

// A transient member exits, and is reaped where its parent reaps: a zombie left for a moment
// would show in a reaper's snapshot in some runs and not in others.
void await_gone(const CaseContext& ctx, const Member& m) {
  if (!m.pidfd) return;
  // A transient agent waits for its word, so that its children are up when it goes.
  if (m.role == ctx.scenario.tree.role) ctx.processes->signal(m.pidfd.get(), SIGUSR1);
  if (!reaper::pidfd_wait_exit(m.pidfd.get(), reaper::time_left(ctx.setup_deadline))) {
    setup_failed("transient member " + m.role + " did not exit before the kill");
  }
  // Reaped by its parent where the scenario says so, where the parent is a supervisor (it always
  // reaps the agent, and acts on that: exits, or signals the agent's group), or where the
  // parent shows it reaps.
  const bool declared = ctx.reaped_transient.count(m.role) != 0 ||
                        (m.role == ctx.scenario.tree.role && ctx.reaper.supervises);
  reaper::Backoff backoff;
  while (!ctx.processes->reaped(m.pidfd.get())) {
    const auto self = ctx.processes->one(m.pid, reaper::Detail::stat);
    // Gone, or a zombie on purpose.
    if (!self || (!declared && !reaps(*ctx.processes, self->ppid))) return;
    if (Clock::now() > ctx.setup_deadline) {
      setup_failed("transient member " + m.role + " was not reaped by its parent before the kill");
    }
    backoff.wait(ctx.setup_deadline);  // no event announces that another process reaped a child
  }
}

// No event announces a stop of a process that is not our child: look at /proc, backing off
// between looks (an exit ends the wait at once).
void await_stopped(const CaseContext& ctx, const Member& m) {
  reaper::Backoff backoff;
  for (;;) {
    auto p = ctx.processes->one(m.pid, reaper::Detail::stat);
    if (p && p->state == 'T') return;
    if (!p || Clock::now() > ctx.setup_deadline) {
      setup_failed("member " + m.role + " did not stop itself before the kill");
    }
    backoff.wait(ctx.setup_deadline, m.pidfd.get());
  }
}

}  // namespace

void await_final_states(const CaseContext& ctx, std::vector<Member>& members) {
  for (Member& m : members) {
    if (ctx.is_transient(m.role)) {
      await_gone(ctx, m);
    } else if (ctx.stopped.count(m.role) != 0) {
      await_stopped(ctx, m);
    } else if (ctx.frozen.count(m.role) != 0 && !await_frozen(m.pid, ctx.setup_deadline)) {
      setup_failed("member " + m.role + " did not freeze its cgroup before the kill");
    }
  }
  std::erase_if(members, [&](const Member& m) { return ctx.is_transient(m.role); });
}

}  // namespace reapcheck
