#include "harness/engine/stages/set_up.h"

#include <fcntl.h>

#include <memory>
#include <variant>

#include "harness/catalog/external.h"
#include "harness/engine/census/cgroup_state.h"
#include "harness/engine/reaper_side/case_environment.h"
#include "harness/engine/tree/fixture.h"
#include "harness/engine/tree/readiness.h"
#include "harness/sandbox/init_reaping.h"

namespace reapcheck {
namespace {

using Clock = CaseContext::Clock;

// Ports handed to a command agent: it has its own network namespace, so any fixed range is free.
constexpr int kFirstPort = 41001;

// The case's own set-up, before any process of it starts.
void prepare(CaseContext& ctx) {
  init::start_reaping();  // PID 1 reaps orphans at once, as a real init would
  if (ctx.scenario.uses_cgroups()) enter_case_cgroup(ctx.options.cgroup_parent);
  std::filesystem::create_directories(ctx.worktree);
  ctx.path = case_path(ctx.scenario.setup.path, ctx.scratch, ctx.options.layout);
  ctx.log_fd =
      reaper::UniqueFd(::open(ctx.log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
  ctx.setup_deadline = Clock::now() + ctx.options.ready;
  if (ctx.observed()) {
    ctx.setup_deadline += std::chrono::milliseconds(ctx.scenario.agent->ready.after_ms);
  }
}

// For a kill from inside the tree, the reaper's command with what the agent cannot know filled
// in; the agent fills in its own ids ({pid}, {pgid} and {sid} stay for the fixture).
std::string inside_kill_command(const CaseContext& ctx) {
  if (ctx.scenario.setup.request != CaseSetup::Request::from_agent) return {};
  return fill_placeholders(ctx.reaper.command, {{"worktree", ctx.worktree.string()},
                                                {"grace_s", grace_seconds(ctx.options.grace)}});
}

// A command agent gets its ports (a package's), and a home of its own so npm touches nothing
// outside.
void add_command_env(CaseContext& ctx, reaper::AgentSpec& spec) {
  int next = kFirstPort;
  for (const auto& [var, role] : ctx.scenario.agent->ports) {
    ctx.ports.emplace_back(next, role);
    spec.env.push_back(var + "=" + std::to_string(next++));
  }
  std::filesystem::create_directories(ctx.scratch / "home");
  spec.env.push_back("HOME=" + (ctx.scratch / "home").string());
  spec.env.push_back("npm_config_cache=" + (ctx.scratch / "npm-cache").string());
  spec.env.emplace_back("npm_config_update_notifier=false");
  spec.env.emplace_back("npm_config_fund=false");
  spec.env.insert(spec.env.end(), ctx.options.agent_homes.begin(), ctx.options.agent_homes.end());
}

reaper::AgentSpec agent_spec(CaseContext& ctx) {
  const ReadinessChannel& ready = *ctx.ready;
  reaper::AgentSpec spec;
  spec.argv =
      prepare_fixture(ctx.scenario, ctx.worktree, ctx.options.layout, inside_kill_command(ctx));
  spec.cwd = ctx.worktree.string();
  spec.blocked_signals = signal_numbers(ctx.scenario.setup.blocked);
  spec.env = {
      "PATH=" + agent_path(ctx), "LC_ALL=C", "REAPCHECK_READY_FD=" + std::to_string(ready.writer()),
      "REAPCHECK_READY_SOCKET=" + ready.socket_path(), "REAPCHECK_FIXTURE_LOG=" + ctx.log.string(),
      "REAPCHECK_WORKTREE=" + ctx.worktree.string(),
      // A supervisor with a grace period of its own keeps within the case's.
      "REAPCHECK_GRACE_MS=" + std::to_string(ctx.options.grace.count()),
      "REAPCHECK_C_MEMBER=" + ctx.options.layout.helper("reapcheck-c-member")};
  spec.inherit_fds = {ready.writer()};
  spec.output_fd =
      ctx.options.command_output_fd >= 0 ? ctx.options.command_output_fd : ctx.log_fd.get();
  if (ctx.scenario.agent) add_command_env(ctx, spec);
  return spec;
}

// Every case runs a sibling agent beside the agent, spawned the same way by the same parent,
// built by the same fixture: killing by name, by interpreter or everything the parent started
// hits it.
reaper::AgentSpec sibling_spec(const CaseContext& ctx) {
  // Its own worktree, which does not contain the agent's path as a substring.
  const auto sibling_tree = ctx.scratch / "sibling" / "worktree";
  std::filesystem::create_directories(sibling_tree);
  reaper::AgentSpec sibling;
  sibling.argv = prepare_sibling(ctx.scenario, sibling_tree, ctx.options.layout);
  sibling.cwd = sibling_tree.string();
  sibling.env = ctx.bystander_watch->env();
  sibling.env.push_back("REAPCHECK_FIXTURE_LOG=" + ctx.log.string());
  sibling.env.push_back("REAPCHECK_C_MEMBER=" + ctx.options.layout.helper("reapcheck-c-member"));
  sibling.inherit_fds = {ctx.bystander_watch->ready_fd()};
  sibling.output_fd = ctx.log_fd.get();
  return sibling;
}

HostPlan host_plan(CaseContext& ctx) {
  const CaseOptions& o = ctx.options;
  HostPlan plan{
      &ctx.reaper,
      agent_spec(ctx),
      std::nullopt,
      o.grace,
      reaper::ReaperConfig{o.cgroup_parent, reaper_allowance(o, ctx.scenario.member_count()) / 2},
      o.ledger,
      ctx.path};
  // A sibling spawned by the same orchestrator would die with it by design: it is no
  // bystander when the orchestrator itself is killed.
  if (ctx.reported_done()) plan.sibling = sibling_spec(ctx);
  return plan;
}

// The ledger, serving the listener the host hands over before it spawns anything; or, where
// there is none, the evidence the case will lack.
std::vector<std::string> start_ledger(CaseContext& ctx) {
  auto listener = ctx.host->take_listener(ctx.setup_deadline);
  auto* fd = std::get_if<reaper::UniqueFd>(&listener);
  if (fd == nullptr) {
    return {"the signal ledger (" + std::get<std::string>(listener) +
            "): signals are seen only by the bystanders they reach"};
  }
  auto feed = kernel_signal_feed();
  if (auto* why = std::get_if<std::string>(&feed)) {
    ctx.ledger.emplace(std::move(*fd), ctx.census, &ctx.hold_clock);
    return {"signals the kernel generates for the reaper's side, such as cgroup.kill's (" + *why +
            ")"};
  }
  ctx.ledger.emplace(std::move(*fd), ctx.census, &ctx.hold_clock, std::get<KernelSignalFeed>(feed));
  ctx.kernel_signals_seen = true;
  return {};
}

// The agent's pid, once the reaper host has spawned it (and the sibling, when there is one).
pid_t await_spawn(CaseContext& ctx) {
  Orchestrator::Reply spawned = ctx.host->wait_spawned(ctx.setup_deadline);
  if (spawned.status == Orchestrator::Reply::Status::unsupported) {
    throw Blocked{{Blocker::Kind::unsupported, "the reaper cannot work here: " + spawned.error}};
  }
  if (spawned.status != Orchestrator::Reply::Status::ok) {
    setup_failed("the reaper could not spawn the agent: " + spawned.error + ctx.log_tail());
  }
  if (ctx.reported_done()) {
    for (const auto& role : sibling_roles()) ctx.bystander_watch->adopt(role, ctx.setup_deadline);
  }
  return spawned.agent;
}

}  // namespace

void start_bystanders(CaseContext& ctx) {
  prepare(ctx);
  const std::filesystem::path sockets = ctx.placement.socket_dir(ctx.scratch);
  ctx.bystanders.emplace(ctx.options.layout.helper("reapcheck-bystander"), ctx.scratch, ctx.census,
                         sockets);
  ctx.bystander_watch = &*ctx.bystanders;
  if (ctx.scenario.has_bystander(BystanderKind::lookalike)) {
    // Not in the tree, but `tail -f <worktree>/dev.log` run from inside the worktree.
    ctx.bystanders->begin("lookalike", {"tail", "-f", (ctx.worktree / "dev.log").string()},
                          ctx.worktree, true);
  }
  // Every case has one: a reaper that signals its own group or everything it can see
  // (kill(0), kill(-1)) must show up as hitting someone else.
  ctx.bystanders->begin("reaper-group", {}, {}, false);
  ctx.ready.emplace((sockets / "ready.sock").string());
  ctx.announcements = &*ctx.ready;
}

Spawned spawn_agent(CaseContext& ctx) {
  Spawned out;
  out.requested = Clock::now();
  HoldClock::set_case(&ctx.hold_clock);  // the host inherits it
  ctx.host = ctx.start_host(host_plan(ctx));
  ctx.orchestrator = ctx.host.get();
  ctx.census.set_reaper_host(ctx.host->pid());
  ctx.ready->close_writer();  // the agent's tree holds the only write ends now: EOF: it died
  out.missing_evidence = start_ledger(ctx);
  if (ctx.ledger) ctx.signal_evidence = std::make_unique<LedgerEvidence>(*ctx.ledger);
  out.agent = await_spawn(ctx);
  return out;
}

std::string agent_path(const CaseContext& ctx) {
  return ctx.observed() && !ctx.options.agent_path.empty() ? ctx.options.agent_path : ctx.path;
}

}  // namespace reapcheck
