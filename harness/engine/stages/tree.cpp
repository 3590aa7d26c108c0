#include "harness/engine/stages/tree.h"

#include <fmt/format.h>
#include <unistd.h>

#include "harness/engine/tree/observed_tree.h"
#include "harness/engine/tree/readiness.h"
#include "harness/model/text.h"
#include "reaper/os/backoff.h"
#include "reaper/os/proc_table.h"

namespace reapcheck {
namespace {

using Clock = CaseContext::Clock;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// The first child of `parent` (a supervisor's agent), once it has forked it.
pid_t await_child(const CaseContext& ctx, pid_t parent) {
  reaper::Backoff backoff;
  for (;;) {
    const reaper::ProcTable table = ctx.processes->table(reaper::Detail::stat);
    for (const auto& p : table.all()) {
      if (p.ppid == parent) return p.pid;
    }
    if (Clock::now() > ctx.setup_deadline) {
      setup_failed(
          fmt::format("the supervisor (pid {}) never started the agent{}", parent, ctx.log_tail()));
    }
    backoff.wait(ctx.setup_deadline);
  }
}

// Where an observed tree ends: nothing at or below a bystander or the reaper's own processes.
TreeBounds bounds_of(const CaseContext& ctx, pid_t agent, pid_t spawned) {
  const pid_t host = ctx.orchestrator->pid();
  TreeBounds bounds{agent, {}, {1, ::getpid(), host, spawned}, ::getsid(0)};
  bounds.adopters.erase(agent);
  for (pid_t b : ctx.bystander_watch->pids_with_ancestors_below(host)) bounds.bystanders.insert(b);
  for (pid_t helper : reaper_helpers(*ctx.processes, host, spawned)) {
    if (bounds.bystanders.count(helper) == 0) bounds.adopters.insert(helper);
  }
  return bounds;
}

// An observed agent's tree, once it is ready: every process the kernel shows descending from
// the agent or orphaned into the namespace, each named from what it runs, and the ports they
// listen on. Nothing it announces counts.
std::vector<Member> observe_members(CaseContext& ctx, pid_t spawned) {
  // Below a supervisor (tini, a supervise: reaper), the agent is the supervisor's child.
  const pid_t agent = ctx.reaper.supervises ? await_child(ctx, spawned) : spawned;
  auto agent_fd = ctx.processes->hold(agent);
  if (!agent_fd) {
    setup_failed(
        fmt::format("the command was not ready: the agent (pid {}) exited before it was ready{}{}",
                    agent, ctx.program_ran(), ctx.log_tail()));
  }
  // Registered at once: what it starts before it is ready is the tree's to the ledger.
  ctx.census.add_member(agent, "agent", agent_fd->get());
  auto tree = observe_when_ready(
      *ctx.processes, bounds_of(ctx, agent, spawned),
      ReadyWatch{ctx.scenario.agent->ready, agent_fd->get(), ctx.log, {}, ctx.setup_deadline},
      ctx.census);
  if (auto* why = std::get_if<std::string>(&tree)) {
    setup_failed(*why + ctx.program_ran() + ctx.log_tail());
  }
  auto& ready = std::get<ObservedTree>(tree);
  ctx.ports = std::move(ready.ports);
  return std::move(ready.members);
}

// Why the fixture stopped announcing before every member had.
[[noreturn]] void announcements_ended(const CaseContext& ctx, size_t got, LineReader::Status s) {
  setup_failed(fmt::format(
      "the fixture announced {} of {} members before {}{}", got, ctx.scenario.member_count(),
      s == LineReader::Status::eof
          ? "its tree exited"
          : fmt::format("going {} ms without announcing another", ctx.options.ready.count()),
      ctx.log_tail()));
}

// One announced member, held by a pidfd from now on; none for the inside reaper, which is the
// reaper's own.
std::optional<Member> take_announcement(CaseContext& ctx, const Announcements::Message& got) {
  auto a = parse_announcement(got.line);
  if (!a) setup_failed("malformed readiness line from the fixture: '" + printable(got.line) + "'");
  const bool transient = ctx.is_transient(a->role);
  // The pid the member wrote is its own namespace's; the kernel told us who sent it.
  const pid_t ours = translate_announced_pid(*ctx.processes, a->pid, got.sender);
  if (ours == 0 && !transient) {
    setup_failed(fmt::format("cannot find member {} (pid {} in its namespace, announced by pid {})",
                             a->role, a->pid, got.sender));
  }
  auto fd = ours != 0 ? ctx.processes->hold(ours) : std::nullopt;
  if (!fd && !transient) {
    setup_failed(
        fmt::format("member {} (pid {}) exited before the kill{}", a->role, ours, ctx.log_tail()));
  }
  if (a->role == InsideReaper::kRole && fd) {
    ctx.inside.adopt(ours, std::move(*fd), ctx.census);  // the reaper's own, not a member
    return std::nullopt;
  }
  // A transient member may be gone already, as it should be; it is no member of the tree the
  // reaper must kill.
  if (fd && !transient) ctx.census.add_member(ours, a->role, fd->get());
  return Member{ours, a->role, fd ? std::move(*fd) : reaper::UniqueFd()};
}

// A package's command (`npm run dev`) is the agent the reaper is asked to kill, whatever roles
// its processes announce: a member from the start, so that what runs below it (its shell, the
// servers that announce themselves) is the tree's, and so are its own kill() calls, never the
// reaper's. Left stopped or alive, it is a survivor like any member.
Member hold_command_agent(CaseContext& ctx, pid_t spawned) {
  const pid_t agent = ctx.reaper.supervises ? await_child(ctx, spawned) : spawned;
  auto fd = ctx.processes->hold(agent);
  if (!fd) {
    setup_failed(fmt::format("the agent (pid {}) exited before its members announced themselves{}",
                             agent, ctx.log_tail()));
  }
  ctx.census.add_member(agent, "agent", fd->get());
  return Member{agent, "agent", std::move(*fd)};
}

// A fixture's tree: the members it announces, each once.
std::vector<Member> collect_members(CaseContext& ctx) {
  std::vector<Member> members;
  const auto expected = static_cast<size_t>(ctx.scenario.member_count());
  const bool inside = ctx.scenario.setup.request == CaseSetup::Request::from_agent;
  while (members.size() < expected || (inside && !ctx.inside.adopted())) {
    auto got = ctx.announcements->next(ctx.setup_deadline);
    if (got.status != LineReader::Status::line)
      announcements_ended(ctx, members.size(), got.status);
    if (auto m = take_announcement(ctx, got)) members.push_back(std::move(*m));
    // The deadline catches a tree that stalls, not one that is slow: a machine where a fork
    // takes 3 ms needs 10 s for wide-tree's 1,000 members. Each member is announced once, so
    // the wait stays bounded by the scenario's size.
    ctx.setup_deadline = std::max(ctx.setup_deadline, Clock::now() + ctx.options.ready);
  }
  return members;
}

// The process a supervising reaper spawned is its own: the supervisor the agent runs under.
void register_supervisor(CaseContext& ctx, pid_t spawned, const std::vector<Member>& members) {
  for (const Member& m : members) {
    if (m.pid == spawned) return;
  }
  if (auto fd = ctx.processes->hold(spawned)) {
    const auto p = ctx.processes->one(spawned, reaper::Detail::full);
    ctx.census.add_reaper(spawned, p && !p->argv.empty() ? p->argv.front() : "supervisor",
                          fd->get());
  }
}

}  // namespace

std::vector<pid_t> reaper_helpers(const Processes& processes, pid_t host, pid_t agent) {
  std::vector<pid_t> out;
  const reaper::ProcTable table = processes.table(reaper::Detail::stat);
  for (const auto& p : table.all()) {
    if (p.ppid == host && p.pid != agent) out.push_back(p.pid);
  }
  return out;
}

Tree build_tree(CaseContext& ctx, const Spawned& spawned) {
  Tree tree;
  tree.spawned = spawned.agent;
  ctx.census.claim_orphans_until_kill(ctx.observed());
  if (ctx.observed()) {
    tree.members = observe_members(ctx, spawned.agent);
  } else if (ctx.scenario.agent) {
    Member agent = hold_command_agent(ctx, spawned.agent);
    tree.members = collect_members(ctx);
    tree.members.insert(tree.members.begin(), std::move(agent));
  } else {
    tree.members = collect_members(ctx);
  }
  await_final_states(ctx, tree.members);
  ctx.bystander_watch->await_begun(ctx.setup_deadline);
  if (ctx.reaper.supervises) register_supervisor(ctx, spawned.agent, tree.members);
  await_quiet(ctx);
  tree.ready_ms = ms_since(spawned.requested);
  const reaper::ProcTable before = ctx.processes->table(reaper::Detail::full);
  for (const Member& m : tree.members) {
    if (const auto* p = before.find(m.pid)) tree.records.push_back(record_of(*p, m.role));
  }
  tree.race = plan_race(ctx.scenario, tree.members, before);
  if (tree.race && ctx.ledger) ctx.ledger->arm_race(tree.race->trigger_pidfds());
  return tree;
}

}  // namespace reapcheck
