// The case stages that talk to the kernel and the running parts — the tree, kill, audit,
// evidence, the tree's final states and quiet — run over a CaseContext whose processes, readiness
// channel, reaper host, bystanders, ledger and placement are the test's fakes (case_fakes.h): no
// process is started.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/engine/bystanders/race.h"
#include "harness/engine/stages/audit.h"
#include "harness/engine/stages/evidence.h"
#include "harness/engine/stages/kill.h"
#include "harness/engine/stages/set_up.h"
#include "harness/engine/stages/tree.h"
#include "tests/unit/case_fakes.h"
#include "tests/unit/temp_dir.h"

namespace reapcheck {
namespace {

using testing::Calls;
using testing::FakeLedger;
using testing::kFakePids;
using Clock = std::chrono::steady_clock;

constexpr pid_t kHost = kFakePids;
constexpr pid_t kAgent = kFakePids + 1;
constexpr pid_t kWorker = kFakePids + 2;

constexpr const char* kTwo = R"(description = "an agent and its worker"
tags = ["perl"]
[tree]
role = "agent"
[[tree.children]]
role = "worker"
)";

class StagesWithFakes : public testing::TempDirTest {
 protected:
  // A context for `scenario` whose running parts are the fakes; the set-up deadline is near, as
  // a stalled tree's would be.
  CaseContext& context(Scenario scenario,
                       std::chrono::milliseconds setup = std::chrono::seconds(5)) {
    scenario_ = std::move(scenario);
    ctx_ = std::make_unique<CaseContext>(scenario_, reaper_, options_, placement_, dir_);
    ctx_->processes = &processes_;
    ctx_->orchestrator = &host_;
    ctx_->bystander_watch = &bystanders_;
    ctx_->announcements = &announcements_;
    ctx_->setup_deadline = Clock::now() + setup;
    return *ctx_;
  }
  CaseContext& context(const char* toml,
                       std::chrono::milliseconds setup = std::chrono::seconds(5)) {
    return context(parse_scenario(toml, "scenarios/t.toml"), setup);
  }
  CaseContext& observed() {
    return context(command_scenario({"npm", "run", "dev"}, dir_, AgentReady{}));
  }
  FakeLedger& ledger() {
    auto fake = std::make_unique<testing::FakeLedger>();
    testing::FakeLedger& out = *fake;
    ctx_->signal_evidence = std::move(fake);
    return out;
  }
  // A member the agent's tree announced (in the agent's session), held by its pidfd.
  Member member(pid_t pid, const std::string& role) {
    return Member{pid, role, processes_.add(pid, role, pid == kAgent ? kHost : kAgent, kAgent)};
  }
  // The agent and its worker, as announced, with their records.
  Tree two_members() {
    Tree tree;
    tree.spawned = kAgent;
    tree.members.push_back(member(kAgent, "agent"));
    tree.members.push_back(member(kWorker, "worker"));
    for (const Member& m : tree.members)
      tree.records.push_back(record_of(*processes_.one(m.pid, reaper::Detail::full), m.role));
    return tree;
  }
  // The agent and the victim of kPidReuse's race, the race planned.
  Tree race_tree(const CaseContext& ctx) {
    Tree tree;
    tree.members.push_back(member(kAgent, "agent"));
    tree.members.push_back(member(kWorker, "victim"));
    tree.race = plan_race(ctx.scenario, tree.members, processes_.table(reaper::Detail::full));
    return tree;
  }
  // A kill the reaper reported done just now, after `tree`'s deaths are watched.
  static Kill done(Tree& tree) {
    watch_members(tree.members, tree.deaths);
    Kill kill;
    kill.reply.status = Orchestrator::Reply::Status::ok;
    kill.requested = Clock::now();
    kill.returned = kill.requested;
    return kill;
  }

  Calls calls_;
  testing::FakeProcesses processes_;
  testing::FakeOrchestrator host_{processes_, calls_, kHost};
  testing::FakeBystanders bystanders_{calls_};
  testing::FakeAnnouncements announcements_;
  testing::FakePlacement placement_;
  ReaperChoice reaper_;
  CaseOptions options_;
  Scenario scenario_;
  std::unique_ptr<CaseContext> ctx_;
};

// The stage must stop the case as a failed set-up, with this reason.
template <typename Stage>
void expect_setup_failed(Stage stage, const std::string& reason) {
  try {
    stage();
    ADD_FAILURE() << "no setup failure; expected: " << reason;
  } catch (const Blocked& b) {
    EXPECT_EQ(b.blocker.kind, Blocker::Kind::setup_failed);
    EXPECT_EQ(b.blocker.reason, reason);
  }
}

// --- spawn_agent ---------------------------------------------------------------------------

// The reaper host the case starts is a fake that answers the spawn with `reply`; the plan it was
// started with is kept in `plan`.
void start_fake_host(CaseContext& ctx, testing::FakeProcesses& processes, Calls& calls,
                     const Orchestrator::Reply& reply, std::optional<HostPlan>& plan) {
  ctx.start_host = [&processes, &calls, reply, &plan](const HostPlan& p) {
    plan = p;
    auto host = std::make_unique<testing::FakeOrchestrator>(processes, calls, kFakePids + 60);
    host->spawn_reply = reply;
    return host;
  };
}

Orchestrator::Reply spawn_reply(Orchestrator::Reply::Status status, std::string error = {}) {
  Orchestrator::Reply reply;
  reply.status = status;
  reply.agent = kAgent;
  reply.error = std::move(error);
  return reply;
}

// The ledger is served before anything is spawned, and the sibling's members are bystanders
// once the spawn is done.
TEST_F(StagesWithFakes, TheHostSpawnsTheAgentAndItsSiblingWithTheLedgersAbsenceNoted) {
  CaseContext& ctx = context(kTwo);
  ctx.ready.emplace();
  const int writer = ctx.ready->writer();
  std::optional<HostPlan> plan;
  start_fake_host(ctx, processes_, calls_, spawn_reply(Orchestrator::Reply::Status::ok), plan);
  const Spawned out = spawn_agent(ctx);
  HoldClock::set_case(nullptr);  // the case's clock dies with the test

  EXPECT_EQ(out.agent, kAgent);
  EXPECT_EQ(out.missing_evidence,
            std::vector<std::string>{"the signal ledger (no listener in a unit test): signals "
                                     "are seen only by the bystanders they reach"});
  EXPECT_FALSE(ctx.ledger);
  EXPECT_FALSE(ctx.signal_evidence);
  EXPECT_EQ(ctx.orchestrator->pid(), kFakePids + 60);
  EXPECT_EQ(ctx.ready->writer(), -1) << "the agent's tree holds the only write ends";
  EXPECT_EQ(calls_, (Calls{"listener taken", "spawn reply read", "sibling-agent adopted",
                           "sibling-child adopted"}));
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->reaper, &reaper_);
  EXPECT_EQ(plan->agent.cwd, ctx.worktree.string());
  EXPECT_EQ(plan->agent.inherit_fds, std::vector<int>{writer});
  const auto& env = plan->agent.env;
  EXPECT_NE(std::find(env.begin(), env.end(), fmt::format("REAPCHECK_READY_FD={}", writer)),
            env.end());
  ASSERT_TRUE(plan->sibling);
  EXPECT_EQ(plan->sibling->inherit_fds, std::vector<int>{bystanders_.ready});
  EXPECT_EQ(plan->sibling->env.front(), bystanders_.environment.front());
}

TEST_F(StagesWithFakes, ASpawnTheReaperCannotDoHereIsUnsupportedAndAFailedOneASetupFailure) {
  CaseContext& ctx = context(R"(description = "force-quit"
tags = ["perl"]
[tree]
role = "agent"
[case]
request = "orchestrator-killed"
)");
  std::optional<HostPlan> plan;
  ctx.ready.emplace();
  start_fake_host(ctx, processes_, calls_,
                  spawn_reply(Orchestrator::Reply::Status::unsupported, "no cgroup v2"), plan);
  try {
    spawn_agent(ctx);
    ADD_FAILURE() << "an unsupported spawn went on";
  } catch (const Blocked& b) {
    EXPECT_EQ(b.blocker.kind, Blocker::Kind::unsupported);
    EXPECT_EQ(b.blocker.reason, "the reaper cannot work here: no cgroup v2");
  }
  ASSERT_TRUE(plan);
  EXPECT_FALSE(plan->sibling) << "a sibling would die with the orchestrator killed";

  ctx.ready.emplace();
  start_fake_host(ctx, processes_, calls_,
                  spawn_reply(Orchestrator::Reply::Status::error, "exec: no such file"), plan);
  expect_setup_failed([&] { spawn_agent(ctx); },
                      "the reaper could not spawn the agent: exec: no such file");
  HoldClock::set_case(nullptr);
  EXPECT_EQ(calls_,
            (Calls{"listener taken", "spawn reply read", "listener taken", "spawn reply read"}))
      << "no sibling to adopt after a force-quit's spawn";
}

// --- build_tree ----------------------------------------------------------------------------

// What the reaper host spawned, just now.
Spawned spawned(pid_t pid) {
  return Spawned{pid, Clock::now(), {}};
}

TEST_F(StagesWithFakes, MembersAnnouncedInOrderBecomeTheTreeWithTheirRecords) {
  CaseContext& ctx = context(kTwo);
  processes_.add(kAgent, "perl", kHost, kAgent, {"perl", "tree.pl"});
  processes_.add(kWorker, "perl", kAgent, kAgent, {"perl", "worker.pl"});
  announcements_.announce(kAgent, "ready 5000001 agent");
  announcements_.announce(kWorker, "ready 5000002 worker");

  const Tree tree = build_tree(ctx, spawned(kAgent));
  EXPECT_EQ(tree.spawned, kAgent);
  ASSERT_EQ(tree.members.size(), 2U);
  EXPECT_EQ(tree.members[0].pid, kAgent);
  EXPECT_EQ(tree.members[0].role, "agent");
  EXPECT_EQ(tree.members[1].pid, kWorker);
  EXPECT_EQ(tree.members[1].role, "worker");
  ASSERT_EQ(tree.records.size(), 2U);
  EXPECT_EQ(tree.records[1].pid, kWorker);
  EXPECT_EQ(tree.records[1].ppid, kAgent);
  EXPECT_EQ(tree.records[1].sid, kAgent);
  EXPECT_EQ(tree.records[1].role, "worker");
  EXPECT_EQ(tree.records[1].argv, (std::vector<std::string>{"perl", "worker.pl"}));
  EXPECT_FALSE(tree.race);
  EXPECT_GE(tree.ready_ms, 0);
  EXPECT_EQ(calls_, Calls{"bystanders begun"});
  const auto worker = ctx.census.who_or_was(kWorker);
  ASSERT_TRUE(worker);
  EXPECT_EQ(worker->kind, Party::Kind::member);
  EXPECT_EQ(worker->role, "worker");
}

// In a PID namespace of its own a member writes its pid there; the kernel names the sender: the
// member itself, or the parent of a member that exec'd.
TEST_F(StagesWithFakes, AMemberAnnouncedInItsOwnNamespaceIsFoundByItsSender) {
  CaseContext& ctx = context(kTwo);
  processes_.add(kAgent, "perl", kHost, kAgent);
  processes_.add(kWorker, "sleep", kAgent, kAgent);
  processes_.at(kAgent).nspid = "5000001 1";
  processes_.at(kWorker).nspid = "5000002 2";
  announcements_.announce(kAgent, "ready 1 agent");
  announcements_.announce(kAgent, "ready 2 worker");  // the worker exec'd sleep

  const Tree tree = build_tree(ctx, spawned(kAgent));
  ASSERT_EQ(tree.members.size(), 2U);
  EXPECT_EQ(tree.members[0].pid, kAgent);
  EXPECT_EQ(tree.members[1].pid, kWorker);
  EXPECT_EQ(tree.members[1].role, "worker");
}

TEST_F(StagesWithFakes, AnAnnouncementFromAPidThatIsGoneIsASetupFailureNamingTheRole) {
  CaseContext& ctx = context(kTwo);
  processes_.add(kAgent, "perl", kHost, kAgent);
  processes_.add(kWorker, "perl", kAgent, kAgent);
  announcements_.announce(kAgent, "ready 5000001 agent");
  announcements_.announce(kWorker, "ready 5000002 worker");
  processes_.exit(kWorker);
  expect_setup_failed([&] { build_tree(ctx, spawned(kAgent)); },
                      "cannot find member worker (pid 5000002 in its namespace, announced by pid "
                      "5000002)");
  EXPECT_EQ(calls_, Calls{}) << "nothing waits on a tree that never was whole";
}

TEST_F(StagesWithFakes, AFixtureThatStopsAnnouncingOrMisspeaksIsASetupFailure) {
  CaseContext& ctx = context(kTwo);
  processes_.add(kAgent, "perl", kHost, kAgent);
  announcements_.announce(kAgent, "ready 5000001 agent");
  expect_setup_failed([&] { build_tree(ctx, spawned(kAgent)); },
                      "the fixture announced 1 of 2 members before its tree exited");
  announcements_.end = LineReader::Status::timeout;
  expect_setup_failed([&] { build_tree(ctx, spawned(kAgent)); },
                      fmt::format("the fixture announced 0 of 2 members before going {} ms "
                                  "without announcing another",
                                  options_.ready.count()));
  announcements_.announce(kAgent, "hello\x01");
  expect_setup_failed([&] { build_tree(ctx, spawned(kAgent)); },
                      "malformed readiness line from the fixture: 'hello\\x01'");
}

// An observed agent's tree, around it: its worker; a daemon it double-forked, orphaned to init
// in the agent's session; a bystander below the reaper host, and the bystander's child; a
// keeper the reaper started beside the agent.
class ObservedTreeWithFakes : public StagesWithFakes {
 protected:
  static constexpr pid_t kDaemon = kFakePids + 5;
  static constexpr pid_t kBystander = kFakePids + 20;
  static constexpr pid_t kBystanderChild = kFakePids + 21;
  static constexpr pid_t kKeeper = kFakePids + 30;

  // The agent as the child of `parent`, and the processes around it.
  void populate(pid_t parent) {
    processes_.add(kAgent, "npm", parent, kAgent, {"npm", "run", "dev"});
    processes_.add(kWorker, "node", kAgent, kAgent, {"node", "vite.js", "--port", "5173"});
    processes_.add(kDaemon, "node", 1, kAgent, {"node", "daemon.js"});
    processes_.add(kBystander, "sleep", kHost, kBystander);
    processes_.add(kBystanderChild, "sleep", kBystander, kBystander);
    processes_.add(kKeeper, "keeper", kHost, kKeeper);
    bystanders_.pids = {kBystander};
    processes_.listening = {{5173, kWorker}, {6000, kBystanderChild}};
  }
  static std::vector<std::pair<pid_t, std::string>> members_of(const Tree& tree) {
    std::vector<std::pair<pid_t, std::string>> out;
    for (const Member& m : tree.members) out.emplace_back(m.pid, m.role);
    return out;
  }
};

TEST_F(ObservedTreeWithFakes, AnAgentsDescendantsAndOrphansAreTheTreeAndABystandersAreNot) {
  CaseContext& ctx = observed();
  populate(kHost);
  const Tree tree = build_tree(ctx, spawned(kAgent));
  EXPECT_EQ(members_of(tree),
            (std::vector<std::pair<pid_t, std::string>>{
                {kAgent, "agent"}, {kWorker, "node vite.js"}, {kDaemon, "node daemon.js"}}));
  ASSERT_EQ(tree.records.size(), 3U);
  EXPECT_EQ(tree.records[2].ppid, 1);
  EXPECT_EQ(ctx.ports, (std::vector<std::pair<int, std::string>>{{5173, "node vite.js"}}));
  EXPECT_EQ(calls_, Calls{"bystanders begun"});
  const auto daemon = ctx.census.who_or_was(kDaemon);
  ASSERT_TRUE(daemon);
  EXPECT_EQ(daemon->kind, Party::Kind::member);
}

TEST_F(ObservedTreeWithFakes, AnAgentGoneBeforeItIsHeldWasNeverReady) {
  CaseContext& ctx = observed();
  populate(kHost);
  processes_.exit(kAgent);
  expect_setup_failed(
      [&] { build_tree(ctx, spawned(kAgent)); },
      "the command was not ready: the agent (pid 5000001) exited before it was ready");
}

TEST_F(ObservedTreeWithFakes, AnAgentWhoseReadyLineNeverCameIsASetupFailureWithWhatRan) {
  CaseContext& ctx =
      context(command_scenario({"npm", "run", "dev"}, dir_, AgentReady{0, "ready in [0-9]+ ms", 0}),
              std::chrono::milliseconds(30));
  populate(kHost);
  std::ofstream(ctx.log) << "vite starting\n";
  expect_setup_failed(
      [&] { build_tree(ctx, spawned(kAgent)); },
      "the command was not ready: it was still waiting for a line of its output to match "
      "'ready in [0-9]+ ms'; its processes then: npm (pid 5000001, S), node vite.js (pid "
      "5000002, S), node daemon.js (pid 5000005, S) — the end of its output: vite starting");
}

// On a PTY each line ends in a carriage return, which is no part of it: the reason ends with the
// output's last line as it reads.
TEST_F(ObservedTreeWithFakes, TheEndOfAnOutputOnATerminalHasNoCarriageReturns) {
  CaseContext& ctx =
      context(command_scenario({"npm", "run", "dev"}, dir_, AgentReady{0, "ready in [0-9]+ ms", 0}),
              std::chrono::milliseconds(30));
  populate(kHost);
  std::ofstream(ctx.log) << "vite starting\r\n  Local: http://localhost:5173/\r\n";
  expect_setup_failed(
      [&] { build_tree(ctx, spawned(kAgent)); },
      "the command was not ready: it was still waiting for a line of its output to match "
      "'ready in [0-9]+ ms'; its processes then: npm (pid 5000001, S), node vite.js (pid "
      "5000002, S), node daemon.js (pid 5000005, S) — the end of its output: vite starting\n"
      "  Local: http://localhost:5173/");
}

// Under supervise: the reaper host spawned the supervisor, and the agent is its child: the
// supervisor is the reaper's, no member.
TEST_F(ObservedTreeWithFakes, ASupervisorIsTheReapersAndItsChildIsTheAgent) {
  CaseContext& ctx = observed();
  reaper_.supervises = true;
  const pid_t supervisor = kFakePids + 50;
  processes_.add(supervisor, "tini", kHost, kHost, {"/usr/bin/tini", "--", "npm", "run", "dev"});
  populate(supervisor);
  const Tree tree = build_tree(ctx, spawned(supervisor));
  EXPECT_EQ(tree.spawned, supervisor);
  EXPECT_EQ(members_of(tree),
            (std::vector<std::pair<pid_t, std::string>>{
                {kAgent, "agent"}, {kWorker, "node vite.js"}, {kDaemon, "node daemon.js"}}));
  const auto registered = ctx.census.who_or_was(supervisor);
  ASSERT_TRUE(registered);
  EXPECT_EQ(registered->kind, Party::Kind::reaper);
  EXPECT_EQ(registered->role, "/usr/bin/tini");
}

// --- kill_tree -----------------------------------------------------------------------------

TEST_F(StagesWithFakes, AMemberGoneBeforeTheKillIsASetupFailureWithItsRole) {
  CaseContext& ctx = context(kTwo);
  Tree tree = two_members();
  processes_.exit(kWorker);
  expect_setup_failed([&] { kill_tree(ctx, tree); },
                      "member worker (pid 5000002) exited before the kill was requested: a "
                      "member that is meant to be gone by then is declared 'transient'");
  EXPECT_EQ(calls_, Calls{}) << "the reaper is asked nothing about a tree that is not intact";
}

TEST_F(StagesWithFakes, AMemberTheReapersSideAlreadySignalledWasNotLost) {
  CaseContext& ctx = context(kTwo);
  Tree tree = two_members();
  ledger().reached = {kWorker};  // a supervisor acting on the agent's exit, say
  processes_.exit(kWorker);
  kill_tree(ctx, tree);
  EXPECT_EQ(calls_, (Calls{"bystanders noted", "kill requested", "reply read"}));
}

TEST_F(StagesWithFakes, AnObservedAgentThatEndedAfterItWasReadyIsASetupFailure) {
  CaseContext& ctx = observed();
  Tree tree = two_members();
  processes_.exit(kAgent);
  expect_setup_failed(
      [&] { kill_tree(ctx, tree); },
      "the agent (pid 5000001) exited after it was ready, before the kill was requested");
  EXPECT_EQ(calls_, Calls{});
}

TEST_F(StagesWithFakes, AnObservedTreesEndedHelperIsNoLongerThereToKill) {
  CaseContext& ctx = observed();
  Tree tree = two_members();
  processes_.exit(kWorker);
  kill_tree(ctx, tree);
  ASSERT_EQ(tree.members.size(), 1U);
  EXPECT_EQ(tree.members[0].role, "agent");
  EXPECT_EQ(calls_, (Calls{"bystanders noted", "kill requested", "reply read"}));
}

TEST_F(StagesWithFakes, TheReaperIsAskedOnceTheBystandersAreNotedAndItsDeathsAreTimed) {
  CaseContext& ctx = context(kTwo);
  Tree tree = two_members();
  host_.reply.status = Orchestrator::Reply::Status::ok;
  host_.reply.steps = {"SIGTERM to group 5000001", "SIGKILL to group 5000001"};
  host_.on_kill = [&] {
    processes_.exit(kAgent);
    processes_.exit(kWorker);
  };
  const Kill kill = kill_tree(ctx, tree);
  EXPECT_EQ(calls_, (Calls{"bystanders noted", "kill requested", "reply read"}));
  EXPECT_EQ(kill.reply.steps, host_.reply.steps);
  EXPECT_EQ(outcome_of(kill.reply).status, ReaperOutcome::Status::done);
  EXPECT_LE(kill.requested, kill.returned);
  for (const Member& m : tree.members) {
    ASSERT_GE(m.watch_slot, 0) << m.role;
    EXPECT_TRUE(tree.deaths.dead(m.watch_slot)) << m.role << " died while the reaper worked";
    EXPECT_GE(tree.deaths.died_at(m.watch_slot), kill.requested);
  }
}

TEST_F(StagesWithFakes, AForceQuitSigkillsTheOrchestratorAndAsksTheReaperNothing) {
  CaseContext& ctx = context(R"(description = "force-quit"
tags = ["perl"]
[tree]
role = "agent"
[case]
request = "orchestrator-killed"
)");
  Tree tree;
  tree.members.push_back(member(kAgent, "agent"));
  const Kill kill = kill_tree(ctx, tree);
  EXPECT_EQ(calls_, (Calls{"bystanders noted", "force-quit"}));
  EXPECT_EQ(kill.reply.status, Orchestrator::Reply::Status::ok);
  EXPECT_EQ(kill.reply.steps,
            std::vector<std::string>{"SIGKILL to the orchestrator, the reaper host (pid 5000000), "
                                     "which the reaper cannot answer"});
  EXPECT_TRUE(reaper::pidfd_exited(host_.pidfd())) << "the stage waited for it to die";
}

constexpr const char* kPidReuse = R"(description = "a member's pid recycled by a decoy"
tags = ["race"]
[tree]
role = "agent"
[[tree.children]]
role = "victim"
[[bystanders]]
kind = "recycled-pid"
target = "victim"
)";

TEST_F(StagesWithFakes, TheDecoyTakesTheVictimsPidOnceTheReaperHasFreedIt) {
  CaseContext& ctx = context(kPidReuse);
  Tree tree = race_tree(ctx);
  ASSERT_TRUE(tree.race);
  host_.on_kill = [&] { processes_.exit(kWorker); };
  kill_tree(ctx, tree);
  EXPECT_EQ(calls_, (Calls{"bystanders noted", "kill requested", "recycled-pid decoy on 5000002",
                           "reply read"}));
  const RaceRecord& race = tree.race->record;
  EXPECT_TRUE(race.opened);
  EXPECT_EQ(race.decoy_pid, kWorker);
  EXPECT_EQ(race.detail,
            "decoy placed on pid 5000002 as the reaper reported done, its last "
            "holder just gone");
}

TEST_F(StagesWithFakes, AVictimAliveWhenTheReaperReportsDoneOpensNoWindow) {
  CaseContext& ctx = context(kPidReuse);
  Tree tree = race_tree(ctx);
  ASSERT_TRUE(tree.race);
  kill_tree(ctx, tree);
  EXPECT_EQ(calls_, (Calls{"bystanders noted", "kill requested", "reply read"}));
  EXPECT_FALSE(tree.race->record.opened);
  EXPECT_EQ(tree.race->record.detail,
            "victim (pid 5000002) had not exited when the reaper reported done");
}

TEST_F(StagesWithFakes, AnIdStillTakenWhenTheReaperReportsDoneOpensNoWindow) {
  CaseContext& ctx = context(kPidReuse);
  Tree tree = race_tree(ctx);
  // The victim exits, but a process the reaper left running holds its id as a group.
  host_.on_kill = [&] { processes_.exit(kWorker); };
  processes_.add(kFakePids + 40, "holder", kHost, kFakePids + 40);
  processes_.at(kFakePids + 40).info.pgid = kWorker;
  bystanders_.decoy_fits = false;
  kill_tree(ctx, tree);
  EXPECT_FALSE(tree.race->record.opened);
  EXPECT_EQ(tree.race->record.detail,
            "the pid 5000002 was still taken when the reaper reported done");
}

// --- audit_tree ----------------------------------------------------------------------------

TEST_F(StagesWithFakes, AReapersLeftoverProcessIsReportedWithItsRecord) {
  CaseContext& ctx = context(kTwo);
  Tree tree = two_members();
  // A delayed kill the reaper left behind, below its host; and a process the census knows nothing
  // of, which is no reaper's.
  const pid_t helper = kFakePids + 10;
  const auto fd = processes_.add(helper, "sh", kHost, kHost, {"sh", "-c", "sleep 5; kill 1"});
  ctx.census.add_reaper(helper, "sh", fd.get());
  processes_.add(kFakePids + 11, "stranger", 1, kFakePids + 11);
  ledger().calls = &calls_;
  const Kill kill = done(tree);
  processes_.exit(kAgent);
  processes_.exit(kWorker);

  const Findings found = audit_tree(ctx, tree, kill);
  ASSERT_EQ(found.reaper_left_running.size(), 1U);
  const ProcessRecord& left = found.reaper_left_running[0];
  EXPECT_EQ(left.pid, helper);
  EXPECT_EQ(left.ppid, kHost);
  EXPECT_EQ(left.role, "reaper");
  EXPECT_EQ(left.argv, (std::vector<std::string>{"sh", "-c", "sleep 5; kill 1"}));
  EXPECT_TRUE(found.survivors.empty());
  EXPECT_TRUE(found.late.empty());
  EXPECT_GE(found.all_dead_ms, 0);
  // The kernel's forks so far are in the census before anything is read (a detached helper is
  // known by its birth); the bystanders are read last.
  EXPECT_EQ(calls_,
            (Calls{"ledger synced", "ledger released", "bystanders settled", "bystanders read"}));
  // Whether it may still act is read before the audit calls the tree's outcome certain.
  EXPECT_NE(std::find(processes_.asked().begin(), processes_.asked().end(), helper),
            processes_.asked().end());
}

// Two processes in the tree's session that no one announced, their parents gone: the kernel's
// fork events show one was forked by the reaper host (a helper that detached), the other by a
// member (a daemon). Only the daemon is the tree's. (The helper is then reported as left running
// by the reaper: the census names a process from the real /proc, which a fake pid is not in.)
TEST_F(StagesWithFakes, AProcessBornOfTheReaperIsNoSurvivorOfTheTree) {
  CaseContext& ctx = context(kTwo);
  Tree tree = two_members();
  ctx.census.set_reaper_host(kHost);
  const pid_t helper = kFakePids + 30;
  const pid_t daemon = kFakePids + 31;
  processes_.add(helper, "sleep", 1, kAgent, {"sleep", "5"});
  processes_.add(daemon, "perl", 1, kAgent, {"perl", "daemon.pl"});
  ctx.census.note_birth(kHost, helper);
  ctx.census.note_birth(kWorker, daemon);
  ledger().calls = &calls_;
  const Kill kill = done(tree);
  processes_.exit(kAgent);
  processes_.exit(kWorker);

  const Findings found = audit_tree(ctx, tree, kill);
  ASSERT_EQ(found.survivors.size(), 1U);
  EXPECT_EQ(found.survivors[0].pid, daemon);
  EXPECT_TRUE(ctx.census.born_of_reaper(helper));
}

TEST_F(StagesWithFakes, AMemberAliveAtDoneAndDeadLaterIsLateWithItsTime) {
  CaseContext& ctx = context(kTwo);
  Tree tree = two_members();
  const Kill kill = done(tree);
  processes_.exit(kAgent);
  processes_.at(kWorker).dies_when_watched = true;  // its handler ends it after the reply

  const Findings found = audit_tree(ctx, tree, kill);
  ASSERT_EQ(found.late.size(), 1U);
  EXPECT_EQ(found.late[0].process.pid, kWorker);
  EXPECT_EQ(found.late[0].process.role, "worker");
  EXPECT_GE(found.late[0].died_after_ms, 0);
  EXPECT_TRUE(found.survivors.empty());
  EXPECT_GE(found.all_dead_ms, found.late[0].died_after_ms);
  EXPECT_TRUE(placement_.ended.empty());
}

// vite-dev-server × cmdline once failed so under load: npm, read as waiting for good, had been
// woken meanwhile by a thread read after it and exited a moment after the audit called it a
// survivor. The audit ends only when no thread ran between two looks around its reads.
TEST_F(StagesWithFakes, AMemberWokenWhileTheTreeWasReadIsWatchedOnAndNoSurvivor) {
  CaseContext& ctx = context(kTwo);
  Tree tree = two_members();
  const Kill kill = done(tree);
  processes_.exit(kWorker);
  processes_.at(kAgent).runs_after_first_look = true;

  const Findings found = audit_tree(ctx, tree, kill);
  EXPECT_TRUE(found.survivors.empty());
  ASSERT_EQ(found.late.size(), 1U);
  EXPECT_EQ(found.late[0].process.role, "agent");
  EXPECT_GE(found.late[0].died_after_ms, 0);
}

TEST_F(StagesWithFakes, ALeftoversKillHeldUntilTheReturnIsNotedMakesItsMemberLate) {
  CaseContext& ctx = context(kTwo);
  Tree tree = two_members();
  FakeLedger& fake = ledger();
  fake.calls = &calls_;
  // A `kill ... &` the reaper never waited for: the ledger held its call, and lets it go once the
  // members alive at the return are noted.
  fake.on_release = [&] { processes_.exit(kWorker); };
  const Kill kill = done(tree);
  processes_.exit(kAgent);

  const Findings found = audit_tree(ctx, tree, kill);
  ASSERT_EQ(found.late.size(), 1U);
  EXPECT_EQ(found.late[0].process.role, "worker");
  EXPECT_GE(found.late[0].died_after_ms, 0);
  EXPECT_TRUE(found.survivors.empty());
  EXPECT_EQ(calls_,
            (Calls{"ledger synced", "ledger released", "bystanders settled", "bystanders read"}));
}

TEST_F(StagesWithFakes, AMemberThatLivesOnSurvivesIsEndedAndNeverDiedLate) {
  CaseContext& ctx = context(kTwo);
  Tree tree = two_members();
  bystanders_.harm = {{kFakePids + 20, "sibling-agent", "SIGTERM", kFakePids + 10, 0}};
  const Kill kill = done(tree);
  processes_.exit(kAgent);  // the worker ignores what the reaper sent

  const Findings found = audit_tree(ctx, tree, kill);
  ASSERT_EQ(found.survivors.size(), 1U);
  EXPECT_EQ(found.survivors[0].pid, kWorker);
  EXPECT_EQ(found.survivors[0].role, "worker");
  EXPECT_EQ(found.survivors[0].sid, kAgent);
  EXPECT_EQ(found.all_dead_ms, -1);
  ASSERT_EQ(found.late.size(), 1U);
  EXPECT_EQ(found.late[0].died_after_ms, -1);
  ASSERT_EQ(placement_.ended.size(), 1U);
  EXPECT_EQ(placement_.ended[0].pid, kWorker);
  // The bystanders' harm is read once what was sent to them has taken effect.
  EXPECT_EQ(calls_, (Calls{"bystanders settled", "bystanders read"}));
  ASSERT_EQ(found.bystanders_hit.size(), 1U);
  EXPECT_EQ(found.bystanders_hit[0].role, "sibling-agent");
}

TEST_F(StagesWithFakes, AfterAForceQuitNoMemberIsLateForNothingReportedDone) {
  CaseContext& ctx = context(R"(description = "force-quit"
tags = ["perl"]
[tree]
role = "agent"
[[tree.children]]
role = "worker"
[case]
request = "orchestrator-killed"
)");
  Tree tree = two_members();
  const Kill kill = done(tree);
  const Findings found = audit_tree(ctx, tree, kill);
  EXPECT_TRUE(found.late.empty());
  EXPECT_EQ(found.survivors.size(), 2U);
}

// --- collect_evidence ----------------------------------------------------------------------

TEST_F(StagesWithFakes, AMemberGoneBeforeTheReaperActedIsASetupFailure) {
  CaseContext& ctx = context(kTwo);
  ledger().gone_before = {"worker (pid 5000002) exited before the reaper's first signal"};
  expect_setup_failed([&] { collect_evidence(ctx, Kill{}); },
                      "member(s) ended on their own, not by the reaper: worker (pid 5000002) "
                      "exited before the reaper's first signal (a member meant to be gone before "
                      "the kill is declared 'transient')");
}

TEST_F(StagesWithFakes, AnObservedTreesShutdownIsItsOwn) {
  CaseContext& ctx = observed();
  ledger().gone_before = {"worker (pid 5000002) exited before the reaper's first signal"};
  EXPECT_TRUE(collect_evidence(ctx, Kill{}).missing_evidence.empty());
}

TEST_F(StagesWithFakes, TheLedgersRecordsComeWithWhatTheKernelsTraceMissed) {
  CaseContext& ctx = context(kTwo);
  FakeLedger& fake = ledger();
  fake.synced = false;
  fake.lost = 3;
  SignalRecord sent;
  sent.signal = "SIGTERM";
  sent.call = "kill";
  fake.signals = {sent};
  const Evidence evidence = collect_evidence(ctx, Kill{});
  ASSERT_EQ(evidence.signals.size(), 1U);
  EXPECT_EQ(evidence.signals[0].signal, "SIGTERM");
  EXPECT_EQ(evidence.missing_evidence,
            (std::vector<std::string>{
                "signals the kernel generated in the last 2000 ms, which did not arrive in time",
                "3 events of the kernel's signal trace, lost to its ring buffer overrunning"}));
  EXPECT_TRUE(evidence.open_ports.empty());
}

TEST_F(StagesWithFakes, WithoutALedgerNoSignalIsRecordedAndNothingIsClaimedMissing) {
  CaseContext& ctx = context(kTwo);
  const Evidence evidence = collect_evidence(ctx, Kill{});
  EXPECT_TRUE(evidence.signals.empty());
  EXPECT_TRUE(evidence.missing_evidence.empty()) << "set-up said why there is no ledger";
}

// --- the tree's final states and quiet -----------------------------------------------------

constexpr const char* kTransient = R"(description = "a double fork's middle"
tags = ["perl"]
[tree]
role = "agent"
transient = true
[[tree.children]]
role = "worker"
[[tree.children]]
role = "middle"
transient = true
)";

TEST_F(StagesWithFakes, TransientMembersGoneAreDroppedAndTheAgentIsToldToGo) {
  CaseContext& ctx = context(kTransient);
  Tree tree = two_members();
  tree.members.push_back(member(kFakePids + 3, "middle"));
  processes_.exit(kAgent);
  processes_.exit(kFakePids + 3);
  const int agent_fd = tree.members[0].pidfd.get();
  await_final_states(ctx, tree.members);
  ASSERT_EQ(tree.members.size(), 1U);
  EXPECT_EQ(tree.members[0].role, "worker");
  EXPECT_EQ(processes_.signals(), (std::vector<std::pair<int, int>>{{agent_fd, SIGUSR1}}));
}

TEST_F(StagesWithFakes, ATransientMemberThatStaysIsASetupFailure) {
  CaseContext& ctx = context(kTransient, std::chrono::milliseconds(20));
  Tree tree;
  tree.members.push_back(member(kFakePids + 3, "middle"));
  expect_setup_failed([&] { await_final_states(ctx, tree.members); },
                      "transient member middle did not exit before the kill");
}

constexpr const char* kStopper = R"(description = "a member that stops itself"
tags = ["perl"]
[tree]
role = "agent"
[[tree.children]]
role = "stopper"
stop_self = true
)";

TEST_F(StagesWithFakes, ASelfStoppingMemberIsAwaitedStopped) {
  CaseContext& ctx = context(kStopper, std::chrono::milliseconds(20));
  Tree tree;
  tree.members.push_back(member(kWorker, "stopper"));
  expect_setup_failed([&] { await_final_states(ctx, tree.members); },
                      "member stopper did not stop itself before the kill");
  processes_.at(kWorker).info.state = 'T';
  await_final_states(ctx, tree.members);
  EXPECT_EQ(tree.members.size(), 1U);
}

TEST_F(StagesWithFakes, AQuietTreePassesAndOneThatKeepsForkingIsASetupFailure) {
  CaseContext& ctx = context(kTwo, std::chrono::milliseconds(50));
  Tree tree = two_members();
  await_quiet(ctx);  // returns: two looks find the same, idle processes
  processes_.keeps_forking = true;
  try {
    await_quiet(ctx);
    ADD_FAILURE() << "a tree that keeps forking went quiet";
  } catch (const Blocked& b) {
    EXPECT_EQ(b.blocker.kind, Blocker::Kind::setup_failed);
    EXPECT_EQ(b.blocker.reason.rfind("the tree never went quiet before the kill: it kept forking "
                                     "or exec'ing (running: perl",
                                     0),
              0U)
        << b.blocker.reason;
  }
}

TEST_F(StagesWithFakes, TheReapersHelpersAreTheHostsOtherChildren) {
  Tree tree = two_members();
  processes_.add(kFakePids + 30, "keeper", kHost, kHost);
  EXPECT_EQ(reaper_helpers(processes_, kHost, kAgent), std::vector<pid_t>{kFakePids + 30});
}

}  // namespace
}  // namespace reapcheck
