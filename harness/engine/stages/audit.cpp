#include "harness/engine/stages/audit.h"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <set>

#include "harness/engine/tree/audit.h"
#include "harness/engine/tree/restart_check.h"
#include "reaper/os/pidfd.h"

namespace reapcheck {
namespace {

using Clock = CaseContext::Clock;

// The most the audit waits for the kernel's feed to catch up (it normally takes a millisecond);
// past it, the census judges by what it has.
constexpr std::chrono::seconds kLineageSync{1};

// The reaper's own processes still running, each held by a pidfd from this instant on.
struct LeftRunning {
  std::vector<ProcessRecord> records;
  std::vector<std::pair<pid_t, reaper::UniqueFd>> held;
};

// The reaper's own processes still running now, the host itself aside. Only they are read in
// full: the table's other entries are the tree's, up to 1,000 of them.
LeftRunning reaper_processes(const CaseContext& ctx) {
  LeftRunning out;
  const Processes& processes = *ctx.processes;
  const reaper::ProcTable table = processes.table(reaper::Detail::stat);
  for (const auto& p : table.all()) {
    if (p.pid == ctx.orchestrator->pid()) continue;
    const auto who = ctx.census.who(p.pid);
    if (!who || who->kind != Party::Kind::reaper) continue;
    auto fd = processes.hold(p.pid);
    if (!fd || reaper::pidfd_exited(fd->get())) continue;
    const auto full = processes.one(p.pid, reaper::Detail::full);
    out.records.push_back(record_of(full ? *full : p, "reaper"));
    out.held.emplace_back(p.pid, std::move(*fd));
  }
  return out;
}

// Members alive, and not dying, at this instant (the reaper has just reported done), each with
// its slot in the case's DeathWatch. Not the members a race held (`held`): the harness itself
// released them to exit once the decoy was in place, so when they are gone says nothing of
// the reaper (and they cannot survive it).
std::vector<std::pair<ProcessRecord, int>> late_members(const CaseContext& ctx,
                                                        const std::vector<Member>& members) {
  const std::vector<std::string> held = ctx.scenario.held_roles();
  std::vector<std::pair<ProcessRecord, int>> out;
  for (const Member& m : members) {
    if (std::find(held.begin(), held.end(), m.role) != held.end()) continue;
    if (!m.pidfd || !ctx.processes->lives_on(m.pid, m.pidfd.get())) continue;
    if (auto p = ctx.processes->one(m.pid, reaper::Detail::full)) {
      out.emplace_back(record_of(*p, m.role), m.watch_slot);
    }
  }
  return out;
}

// Members that had ended, or were ending, by the reaper's return though no signal reached them
// from the reaper's side nor from the kernel: npm run dev exits once the server the reaper killed
// has gone. Whether that comes before the return is the scheduler's choice, so such a member
// counts as late wherever it ended: the reaper never made sure it died. Only those that exited
// (exited_on_its_own() keeps them once their status is known): one killed by a signal the ledger
// did not resolve (a PID namespace's end, whose targets are gone before they are looked up) died
// of an act under way. Only where the ledger sees the kernel's signals: without its feed, a
// cgroup.kill reaches members unrecorded.
std::vector<const Member*> ended_unreached(const CaseContext& ctx,
                                           const std::vector<Member>& members) {
  std::vector<const Member*> out;
  if (!ctx.signal_evidence || !ctx.kernel_signals_seen) return out;
  const std::vector<std::string> held = ctx.scenario.held_roles();
  for (const Member& m : members) {
    if (std::find(held.begin(), held.end(), m.role) != held.end()) continue;
    // Dead, or dying: late_members() takes the rest.
    if (!m.pidfd || ctx.processes->lives_on(m.pid, m.pidfd.get())) continue;
    if (!ctx.signal_evidence->reached_or_kernel(m.pid)) out.push_back(&m);
  }
  return out;
}

// Of those, the ones that exited, as their records before the kill.
std::vector<ProcessRecord> exited_on_its_own(const std::vector<const Member*>& ended,
                                             const std::vector<ProcessRecord>& records) {
  std::vector<ProcessRecord> out;
  for (const Member* m : ended) {
    const auto status = reaper::pidfd_exit_status(m->pidfd.get());
    if (!status || !WIFEXITED(*status)) continue;
    for (const auto& r : records) {
      if (r.pid == m->pid) out.push_back(r);
    }
  }
  return out;
}

// Whether a signal of the reaper's side (or the kernel's) reached `pid`, or was sent to it by
// number or pidfd though the harness had ended it first (the race's held member, released once
// the decoy is placed, may be gone by the time the reaper's call comes).
bool reaper_addressed(const std::vector<SignalRecord>& records, pid_t pid) {
  const std::string by_pid = fmt::format("pid {}", pid);
  const std::string by_thread = fmt::format("thread {}", pid);
  const std::string by_fd = fmt::format(" of pid {}", pid);
  return std::any_of(records.begin(), records.end(), [&](const SignalRecord& r) {
    if (!(r.counts() || r.kernel)) return false;
    const std::string& t = r.target;
    return t == by_pid || t == by_thread ||
           (t.size() > by_fd.size() &&
            t.compare(t.size() - by_fd.size(), by_fd.size(), by_fd) == 0) ||
           std::any_of(r.reached.begin(), r.reached.end(),
                       [&](const Party& p) { return p.pid == pid; });
  });
}

// Members a race held (they ignore SIGTERM until the harness, once the decoy is placed, tells
// them to exit) that no signal of the reaper's side or the kernel's reached or was sent to: the
// harness ended them to free the recycled id, so they are dead, yet they outlived the reaper.
std::vector<ProcessRecord> held_unreached(const CaseContext& ctx, const Tree& tree,
                                          const Kill& kill) {
  std::vector<ProcessRecord> out;
  if (!tree.race || !ctx.signal_evidence || !ctx.kernel_signals_seen) return out;
  const std::vector<std::string> held = ctx.scenario.held_roles();
  const std::vector<SignalRecord> records = ctx.signal_evidence->records(kill.requested);
  for (const ProcessRecord& r : tree.records) {
    if (std::find(held.begin(), held.end(), r.role) != held.end() &&
        !reaper_addressed(records, r.pid)) {
      out.push_back(r);
    }
  }
  return out;
}

// Who is still alive once the reaper is done, and which bystanders it touched.
void watch_until_certain(CaseContext& ctx, Tree& tree, const Kill& kill, const LeftRunning& left,
                         Findings& out) {
  std::set<pid_t> sessions = {tree.spawned};  // the agent leads its own session
  for (const auto& m : tree.records) sessions.insert(m.sid);
  const pid_t host = ctx.orchestrator->pid();
  AuditScope scope{kill.requested,
                   ctx.options.settle,
                   ctx.bystander_watch->pids_with_ancestors_below(host),
                   ctx.placement.tree_sessions(sessions),
                   {}};
  scope.processes = ctx.processes;
  scope.outside.insert({1, host, ::getpid()});
  for (pid_t helper : reaper_helpers(*ctx.processes, host, tree.spawned)) {
    scope.outside.insert(helper);
  }
  for (const auto& [pid, fd] : left.held) scope.reaper_left_running.emplace_back(pid, fd.get());
  if (SignalEvidence* ledger = ctx.signal_evidence.get()) {
    scope.learn_births = [ledger] { ledger->sync_kernel(Clock::now() + kLineageSync); };
  }
  AuditResult audited = audit(tree.members, tree.deaths, ctx.census, scope);
  out.survivors = std::move(audited.survivors);
  for (ProcessRecord& r : held_unreached(ctx, tree, kill)) {
    const bool listed = std::any_of(out.survivors.begin(), out.survivors.end(),
                                    [&](const ProcessRecord& s) { return s.pid == r.pid; });
    out.ended_by_harness.push_back(r.pid);
    if (!listed) out.survivors.push_back(std::move(r));
  }
  out.all_dead_ms = out.survivors.empty() ? audited.all_dead_ms : -1;
  out.watched_ms = audited.watched_ms;
  out.busy_at_bound = audited.busy_at_bound;
  ctx.bystander_watch->settle(Clock::now() + ctx.options.settle);
  out.bystanders_hit = ctx.bystander_watch->hits();
  ctx.placement.end_survivors(out.survivors, sessions);
}

}  // namespace

Findings audit_tree(CaseContext& ctx, Tree& tree, const Kill& kill) {
  Findings out;
  // What runs at the instant the reaper reported done, its own processes first: they are few
  // and may be gone a moment later (a helper it left behind, such as a delayed kill), while
  // the tree's members take a read each, which on a 1,000-member tree under load outlasts such
  // a helper.
  // Every fork the kernel traced so far is in the census first: a helper of the reaper's that
  // detached is known as the reaper's by its birth.
  if (ctx.signal_evidence) ctx.signal_evidence->sync_kernel(Clock::now() + kLineageSync);
  LeftRunning left = reaper_processes(ctx);
  out.reaper_left_running = std::move(left.records);
  std::vector<std::pair<ProcessRecord, int>> late;
  std::vector<const Member*> ended;
  if (ctx.reported_done()) {
    late = late_members(ctx, tree.members);
    ended = ended_unreached(ctx, tree.members);
  }
  if (ctx.signal_evidence) ctx.signal_evidence->release_after_return();
  if (ctx.reported_done()) {
    out.rebind_failures = rebind_ports(ctx.ports, kill.returned + ctx.options.settle);
  }
  watch_until_certain(ctx, tree, kill, left, out);
  for (const auto& [process, slot] : late) {
    const bool died = tree.deaths.dead(slot);
    out.late.push_back({process, died ? std::chrono::duration<double, std::milli>(
                                            tree.deaths.died_at(slot) - kill.returned)
                                            .count()
                                      : -1});
  }
  for (ProcessRecord& process : exited_on_its_own(ended, tree.records)) {
    out.late.push_back({std::move(process), -1, true});
  }
  return out;
}

}  // namespace reapcheck
