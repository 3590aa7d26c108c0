#include "harness/engine/case_body.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <optional>
#include <set>
#include <variant>

#include "harness/catalog/external.h"
#include "harness/engine/activity.h"
#include "harness/engine/audit.h"
#include "harness/engine/bystanders.h"
#include "harness/engine/case_environment.h"
#include "harness/engine/cgroup_state.h"
#include "harness/engine/fixture.h"
#include "harness/engine/inside_reaper.h"
#include "harness/engine/observed_tree.h"
#include "harness/engine/ports.h"
#include "harness/engine/race.h"
#include "harness/engine/readiness.h"
#include "harness/engine/readiness_channel.h"
#include "harness/engine/reaper_host.h"
#include "harness/engine/restart_check.h"
#include "harness/engine/signal_ledger.h"
#include "harness/model/text.h"
#include "harness/sandbox/init_reaping.h"
#include "harness/support/cpu_time.h"
#include "harness/support/paths.h"
#include "reaper/os/backoff.h"
#include "reaper/os/deadline.h"
#include "reaper/os/pidfd.h"
#include "reaper/os/proc_table.h"
#include "reaper/os/read_file.h"
#include "reaper/os/sys_error.h"

namespace reapcheck {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// How long the kernel's signals may take to reach the case after they were sent.
constexpr std::chrono::milliseconds kKernelSyncBound{2000};

// Ports handed to a command agent: it has its own network namespace, so any fixed range is free.
constexpr int kFirstPort = 41001;

// Thrown by a step that finds the case cannot go on; run() records it as the case's blocker.
struct Blocked {
  Blocker blocker;
};

[[noreturn]] void setup_failed(std::string reason) {
  throw Blocked{{Blocker::Kind::setup_failed, std::move(reason)}};
}

std::set<std::string> as_set(const std::vector<std::string>& roles) {
  return {roles.begin(), roles.end()};
}

// Where a case's time goes, phase by phase: each mark closes the phase begun at the last one.
class Phases {
 public:
  explicit Phases(CaseResult& r) : r_(r), last_(Clock::now()) {}
  void mark(const char* phase) {
    const auto now = Clock::now();
    r_.phases_ms.emplace_back(phase,
                              std::chrono::duration<double, std::milli>(now - last_).count());
    last_ = now;
  }

 private:
  CaseResult& r_;
  Clock::time_point last_;
};

class CaseBody {
 public:
  CaseBody(const Scenario& scenario, const ReaperChoice& reaper, const CaseOptions& options,
           std::filesystem::path scratch)
      : scenario_(scenario),
        reaper_(reaper),
        options_(options),
        scratch_(std::move(scratch)),
        worktree_(observed() ? scenario.agent->dir : scratch_ / "worktree"),
        log_(scratch_ / "fixture.log"),
        transient_(as_set(scenario.transient_roles())),
        reaped_transient_(as_set(scenario.reaped_transient_roles())),
        stopped_(as_set(scenario.stopped_roles())),
        frozen_(as_set(scenario.frozen_roles())) {}

  CaseResult run() {
    CaseResult r;
    r.settle_ms = static_cast<int>(options_.settle.count());
    try {
      execute(r);
    } catch (const Blocked& b) {
      r.blocked = b.blocker;
    } catch (const std::exception& e) {
      r.blocked = Blocker{Blocker::Kind::setup_failed, e.what()};
    }
    return r;
  }

 private:
  void execute(CaseResult& r) {
    Phases phases(r);
    prepare();
    Census census;
    const std::filesystem::path sockets = socket_dir();
    Bystanders bystanders(scratch_, census, sockets);
    start_bystanders(bystanders);
    ReadinessChannel ready((sockets / "ready.sock").string());
    phases.mark("bystanders");
    const auto tree_start = Clock::now();
    ReaperHost host(host_plan(ready, bystanders));
    census.set_reaper_host(host.pid());
    ready.close_writer();  // the agent's tree holds the only write ends now: EOF means it died
    std::optional<SignalLedger> ledger = start_ledger(host, census, r);
    const pid_t agent = await_spawn(host, bystanders);
    phases.mark("spawn");

    std::vector<Member> members = tree_members(agent, host, bystanders, ready, census);
    await_final_states(members);
    bystanders.await_begun(setup_deadline_);
    if (reaper_.supervises) register_supervisor(agent, members, census);
    r.tree_ms = ms_since(tree_start);
    const reaper::ProcTable before = reaper::ProcTable::read();
    for (const Member& m : members) {
      if (const auto* p = before.find(m.pid)) r.members.push_back(record_of(*p, m.role));
    }
    std::optional<Race> race = plan_race(scenario_, members, before);
    if (race && ledger) ledger->arm_race(race->trigger_pidfds());
    phases.mark("tree");

    DeathWatch deaths;
    watch_members(members, deaths);
    if (observed()) drop_ended(members);
    require_intact(members, ledger ? &*ledger : nullptr);
    census.claim_orphans_until_kill(false);  // the reaper acts from here on
    const auto kill_start = Clock::now();
    ReaperHost::Reply killed =
        request_kill(host, race, bystanders, deaths, ledger ? &*ledger : nullptr, kill_start);
    const auto returned = Clock::now();
    r.kill_ms = ms_since(kill_start);
    phases.mark("kill");
    // What runs at the instant the reaper reported done, its own processes first: they are few
    // and may be gone a moment later (a helper it left behind, such as a delayed kill), while
    // the tree's members take a read each, which on a 1,000-member tree under load outlasts such
    // a helper.
    std::vector<std::pair<pid_t, reaper::UniqueFd>> left_running;
    r.reaper_left_running = reaper_processes(census, host.pid(), left_running);
    std::vector<std::pair<ProcessRecord, int>> late;
    if (reported_done()) {
      late = late_members(members, scenario_.held_roles());
      r.rebind_failures = rebind_ports(ports_, returned + options_.settle);
    }
    r.reaper_steps = killed.steps;
    r.reaper_cpu_ms = killed.cpu_ms;
    r.reaper_children_cpu_ms = killed.children_cpu_ms;
    r.reaper_outcome = outcome_of(killed);
    if (race) r.race = race->record;

    audit_tree(r, members, deaths, census, host, bystanders, agent, kill_start, left_running);
    for (const auto& [process, slot] : late) {
      const bool died = deaths.dead(slot);
      r.late.push_back(
          {process,
           died ? std::chrono::duration<double, std::milli>(deaths.died_at(slot) - returned).count()
                : -1});
    }
    phases.mark("audit");
    // An observed tree's shutdown is its own: a member that ends when its parent dies (stdin
    // closed, a parent-death signal) ended by the kill, whatever it caught.
    if (!observed()) require_no_unbidden_exit(census, ledger ? &*ledger : nullptr);
    r.open_ports = open_ports();
    if (ledger) take_ledger(*ledger, kill_start, r);
    phases.mark("evidence");
    r.harness_cpu_ms = cpu_ms(RUSAGE_SELF);  // every thread of the runner: the ledger's too
  }

  // What the ledger recorded, once the kernel's signals sent so far have reached it.
  static void take_ledger(SignalLedger& ledger, Clock::time_point kill_start, CaseResult& r) {
    if (!ledger.sync_kernel(Clock::now() + kKernelSyncBound)) {
      r.missing_evidence.push_back(fmt::format(
          "signals the kernel generated in the last {} ms, which did not arrive in time",
          kKernelSyncBound.count()));
    }
    if (const uint64_t lost = ledger.kernel_lost(); lost > 0) {
      r.missing_evidence.push_back(fmt::format(
          "{} events of the kernel's signal trace, lost to its ring buffer overrunning", lost));
    }
    r.signals = ledger.records(kill_start);
    name_senders(r.bystanders_hit, r.signals);
  }

  // The ledger, serving the listener the host hands over before it spawns anything; or, where
  // there is none, the evidence the case will lack.
  std::optional<SignalLedger> start_ledger(ReaperHost& host, const Census& census,
                                           CaseResult& r) const {
    auto listener = host.take_listener(setup_deadline_);
    if (auto* fd = std::get_if<reaper::UniqueFd>(&listener)) {
      auto feed = kernel_signal_feed();
      if (auto* why = std::get_if<std::string>(&feed)) {
        r.missing_evidence.push_back(
            "signals the kernel generates for the reaper's side, such as "
            "cgroup.kill's (" +
            *why + ")");
        return std::optional<SignalLedger>(std::in_place, std::move(*fd), census);
      }
      return std::optional<SignalLedger>(std::in_place, std::move(*fd), census,
                                         std::get<KernelSignalFeed>(feed));
    }
    r.missing_evidence.push_back("the signal ledger (" + std::get<std::string>(listener) +
                                 "): signals are seen only by the bystanders they reach");
    return std::nullopt;
  }

  HostPlan host_plan(const ReadinessChannel& ready, const Bystanders& bystanders) {
    HostPlan plan{&reaper_,
                  agent_spec(ready),
                  std::nullopt,
                  options_.grace,
                  reaper::ReaperConfig{options_.cgroup_parent,
                                       reaper_allowance(options_, scenario_.member_count()) / 2},
                  options_.ledger,
                  path_};
    // A sibling spawned by the same orchestrator would die with it by design: it is no
    // bystander when the orchestrator itself is killed.
    if (reported_done()) plan.sibling = sibling_spec(bystanders);
    return plan;
  }

  // Whether anything reports the kill done: not when the orchestrator is SIGKILLed instead.
  bool reported_done() const {
    return scenario_.setup.request != CaseSetup::Request::orchestrator_killed;
  }

  // The kill, requested as the scenario says: from the reaper (the usual way), by SIGKILLing
  // the orchestrator, or by the agent's own kill command.
  ReaperHost::Reply request_kill(ReaperHost& host, std::optional<Race>& race,
                                 Bystanders& bystanders, DeathWatch& deaths, SignalLedger* ledger,
                                 Clock::time_point start) {
    const auto deadline =
        start + options_.grace + reaper_allowance(options_, scenario_.member_count());
    switch (scenario_.setup.request) {
      case CaseSetup::Request::orchestrator_killed:
        return kill_orchestrator(host, deaths, deadline);
      case CaseSetup::Request::from_agent:
        return inside_.run(deaths, deadline);
      case CaseSetup::Request::reaper:
        break;
    }
    host.request_kill();
    return await_kill(host, race, bystanders, deaths, ledger, start, deadline);
  }

  // An app force-quit: the orchestrator, which holds the reaper, is SIGKILLed, and nothing of
  // the reaper's runs but what outlives it (a supervisor, a keeper, a parent-death signal).
  static ReaperHost::Reply kill_orchestrator(const ReaperHost& host, DeathWatch& deaths,
                                             Clock::time_point deadline) {
    reaper::pidfd_signal(host.pidfd(), SIGKILL);
    deaths.wait(deadline, host.pidfd());
    ReaperHost::Reply reply;
    reply.status = ReaperHost::Reply::Status::ok;
    reply.steps = {"SIGKILL to the orchestrator, the reaper host (pid " +
                   std::to_string(host.pid()) + "), which the reaper cannot answer"};
    return reply;
  }

  // The process a supervising reaper spawned is its own: the supervisor the agent runs under.
  static void register_supervisor(pid_t spawned, const std::vector<Member>& members,
                                  Census& census) {
    for (const Member& m : members) {
      if (m.pid == spawned) return;
    }
    if (auto fd = reaper::pidfd_open(spawned)) {
      const auto p = reaper::ProcTable::read_one(spawned, reaper::Detail::full);
      census.add_reaper(spawned, p && !p->argv.empty() ? p->argv.front() : "supervisor", fd->get());
    }
  }

  // Members alive, and not dying, at this instant (the reaper has just reported done), each with
  // its slot in the case's DeathWatch. Not the members a race held (`held`): the harness itself
  // released them to exit once the decoy was in place, so when they are gone says nothing of
  // the reaper (and they cannot survive it).
  static std::vector<std::pair<ProcessRecord, int>> late_members(
      const std::vector<Member>& members, const std::vector<std::string>& held) {
    std::vector<std::pair<ProcessRecord, int>> out;
    for (const Member& m : members) {
      if (std::find(held.begin(), held.end(), m.role) != held.end()) continue;
      if (!m.pidfd || !lives_on(m.pid, m.pidfd.get())) continue;
      if (auto p = reaper::ProcTable::read_one(m.pid, reaper::Detail::full)) {
        out.emplace_back(record_of(*p, m.role), m.watch_slot);
      }
    }
    return out;
  }

  // The reaper's own processes still running now, the host itself aside, each held by a pidfd.
  // Only they are read in full: the table's other entries are the tree's, up to 1,000 of them.
  static std::vector<ProcessRecord> reaper_processes(
      const Census& census, pid_t host, std::vector<std::pair<pid_t, reaper::UniqueFd>>& held) {
    std::vector<ProcessRecord> out;
    const reaper::ProcTable table = reaper::ProcTable::read("/proc", reaper::Detail::stat);
    for (const auto& p : table.all()) {
      if (p.pid == host) continue;
      const auto who = census.who(p.pid);
      if (!who || who->kind != Party::Kind::reaper) continue;
      auto fd = reaper::pidfd_open(p.pid);
      if (!fd || reaper::pidfd_exited(fd->get())) continue;
      const auto full = reaper::ProcTable::read_one(p.pid, reaper::Detail::full);
      out.push_back(record_of(full ? *full : p, "reaper"));
      held.emplace_back(p.pid, std::move(*fd));
    }
    return out;
  }

  // The reaper host's own children but the agent (or the supervisor it runs under): a reaper's
  // helpers, such as the keeper holding the sibling's cgroup. They are the reaper's, not the
  // tree's, and may run until the case ends.
  static std::vector<pid_t> reaper_helpers(pid_t host, pid_t agent) {
    std::vector<pid_t> out;
    const reaper::ProcTable table = reaper::ProcTable::read("/proc", reaper::Detail::stat);
    for (const auto& p : table.all()) {
      if (p.ppid == host && p.pid != agent) out.push_back(p.pid);
    }
    return out;
  }

  // A bystander's own record says only what it could see; the ledger says who sent it.
  static void name_senders(std::vector<BystanderHit>& hits,
                           const std::vector<SignalRecord>& signals) {
    for (BystanderHit& hit : hits) {
      if (hit.sender_pid != 0) continue;
      for (const SignalRecord& s : signals) {
        const bool reached = std::any_of(s.reached.begin(), s.reached.end(),
                                         [&](const Party& p) { return p.pid == hit.pid; });
        if (!reached || s.signal == "0" || (hit.signal != "unknown" && hit.signal != s.signal)) {
          continue;
        }
        hit.signal = s.signal;
        hit.sender_pid = s.sender.pid;
        break;
      }
    }
  }

  // Bystanders that exist before the agent does; each is ready before the kill (await_begun).
  void start_bystanders(Bystanders& bystanders) {
    if (scenario_.has_bystander(BystanderKind::lookalike)) {
      // Not in the tree, but `tail -f <worktree>/dev.log` run from inside the worktree.
      bystanders.begin("lookalike", {"tail", "-f", (worktree_ / "dev.log").string()}, worktree_,
                       true);
    }
    // Every case has one: a reaper that signals its own group or everything it can see
    // (kill(0), kill(-1)) must show up as hitting someone else.
    bystanders.begin("reaper-group", {}, {}, false);
  }

  reaper::AgentSpec agent_spec(const ReadinessChannel& ready) {
    reaper::AgentSpec spec;
    spec.argv = prepare_fixture(scenario_, worktree_, inside_kill_command());
    spec.cwd = worktree_.string();
    spec.blocked_signals = signal_numbers(scenario_.setup.blocked);
    const std::string path =
        observed() && !options_.agent_path.empty() ? options_.agent_path : path_;
    spec.env = {"PATH=" + path, "LC_ALL=C", "REAPCHECK_READY_FD=" + std::to_string(ready.writer()),
                "REAPCHECK_READY_SOCKET=" + ready.socket_path(),
                "REAPCHECK_FIXTURE_LOG=" + log_.string(),
                "REAPCHECK_WORKTREE=" + worktree_.string(),
                // A supervisor with a grace period of its own keeps within the case's.
                "REAPCHECK_GRACE_MS=" + std::to_string(options_.grace.count()),
                "REAPCHECK_C_MEMBER=" + helper_path("reapcheck-c-member")};
    spec.inherit_fds = {ready.writer()};
    spec.output_fd = log_fd_.get();
    if (scenario_.agent) {
      // A command agent gets its ports (a package's), and a home of its own so npm touches
      // nothing outside.
      int next = kFirstPort;
      for (const auto& [var, role] : scenario_.agent->ports) {
        ports_.emplace_back(next, role);
        spec.env.push_back(var + "=" + std::to_string(next++));
      }
      std::filesystem::create_directories(scratch_ / "home");
      spec.env.push_back("HOME=" + (scratch_ / "home").string());
      spec.env.push_back("npm_config_cache=" + (scratch_ / "npm-cache").string());
      spec.env.emplace_back("npm_config_update_notifier=false");
      spec.env.emplace_back("npm_config_fund=false");
    }
    return spec;
  }

  // For a kill from inside the tree, the reaper's command with what the agent cannot know filled
  // in; the agent fills in its own ids.
  std::string inside_kill_command() const {
    if (scenario_.setup.request != CaseSetup::Request::from_agent) return {};
    // {pid}, {pgid} and {sid} stay for the fixture, which knows them.
    return fill_placeholders(reaper_.command, {{"worktree", worktree_.string()},
                                               {"grace_s", grace_seconds(options_.grace)}});
  }

  // Every case runs a sibling agent beside the agent, spawned the same way by the same parent,
  // built by the same fixture: killing by name, by interpreter or everything the parent started
  // hits it.
  reaper::AgentSpec sibling_spec(const Bystanders& bystanders) const {
    // Its own worktree, which does not contain the agent's path as a substring.
    const auto sibling_tree = scratch_ / "sibling" / "worktree";
    std::filesystem::create_directories(sibling_tree);
    reaper::AgentSpec sibling;
    sibling.argv = prepare_sibling(scenario_, sibling_tree);
    sibling.cwd = sibling_tree.string();
    sibling.env = bystanders.env();
    sibling.env.push_back("REAPCHECK_FIXTURE_LOG=" + log_.string());
    sibling.env.push_back("REAPCHECK_C_MEMBER=" + helper_path("reapcheck-c-member"));
    sibling.inherit_fds = {bystanders.ready_fd()};
    sibling.output_fd = log_fd_.get();
    return sibling;
  }

  // The agent's pid, once the reaper host has spawned it (and the sibling, when there is one).
  pid_t await_spawn(ReaperHost& host, Bystanders& bystanders) {
    ReaperHost::Reply spawned = host.wait_spawned(setup_deadline_);
    if (spawned.status == ReaperHost::Reply::Status::unsupported) {
      throw Blocked{{Blocker::Kind::unsupported, "the reaper cannot work here: " + spawned.error}};
    }
    if (spawned.status != ReaperHost::Reply::Status::ok) {
      setup_failed("the reaper could not spawn the agent: " + spawned.error + log_tail());
    }
    if (reported_done()) {
      for (const auto& role : sibling_roles()) bystanders.adopt(role, setup_deadline_);
    }
    return spawned.agent;
  }

  // The case's own set-up, before any process of it starts.
  void prepare() {
    init::start_reaping();  // PID 1 reaps orphans at once, as a real init would
    if (scenario_.uses_cgroups()) enter_case_cgroup(options_.cgroup_parent);
    std::filesystem::create_directories(worktree_);
    path_ = case_path(scenario_.setup.path, scratch_);
    log_fd_ =
        reaper::UniqueFd(::open(log_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
    setup_deadline_ = Clock::now() + options_.ready;
    if (observed()) setup_deadline_ += std::chrono::milliseconds(scenario_.agent->ready.after_ms);
  }

  // The tree's members once it is ready: observed, or announced by the fixture.
  std::vector<Member> tree_members(pid_t agent, const ReaperHost& host,
                                   const Bystanders& bystanders, ReadinessChannel& ready,
                                   Census& census) {
    census.claim_orphans_until_kill(observed());
    return observed() ? observe_members(agent, host, bystanders, census)
                      : collect_members(ready, census);
  }

  bool observed() const { return scenario_.agent && scenario_.agent->observed(); }

  // Where the case's Unix sockets go. A socket's path holds at most 107 bytes, and TMPDIR, which
  // holds the scratch, may be longer (a CI runner's): in the sandbox they go in a folder of its
  // private /tmp, which no other case sees; on the host, in the scratch.
  std::filesystem::path socket_dir() const {
    if (options_.on_host) return scratch_;
    std::string dir = "/tmp/reapcheck-sockets-XXXXXX";
    if (::mkdtemp(dir.data()) == nullptr) reaper::throw_sys("make a folder for the case's sockets");
    return dir;
  }

  // An observed agent's tree, once it is ready: every process the kernel shows descending from
  // the agent or orphaned into the namespace, each named from what it runs, and the ports they
  // listen on. Nothing it announces counts.
  std::vector<Member> observe_members(pid_t spawned, const ReaperHost& host,
                                      const Bystanders& bystanders, Census& census) {
    // Below a supervisor (tini, a supervise: reaper), the agent is the supervisor's child.
    const pid_t agent = reaper_.supervises ? await_child(spawned) : spawned;
    auto agent_fd = reaper::pidfd_open(agent);
    // Registered at once: what it starts before it is ready is the tree's to the ledger.
    if (agent_fd) census.add_member(agent, "agent", agent_fd->get());
    if (!agent_fd) {
      setup_failed(
          fmt::format("the command was not ready: the agent (pid {}) exited before it "
                      "was ready{}",
                      agent, log_tail()));
    }
    TreeBounds bounds{agent, {}, {1, ::getpid(), host.pid(), spawned}, ::getsid(0)};
    bounds.adopters.erase(agent);
    for (pid_t b : bystanders.pids_with_ancestors_below(host.pid())) bounds.bystanders.insert(b);
    for (pid_t helper : reaper_helpers(host.pid(), spawned)) {
      if (bounds.bystanders.count(helper) == 0) bounds.adopters.insert(helper);
    }
    auto tree = observe_when_ready(
        bounds, ReadyWatch{scenario_.agent->ready, agent_fd->get(), log_, {}, setup_deadline_},
        census);
    if (auto* why = std::get_if<std::string>(&tree)) setup_failed(*why + log_tail());
    auto& ready = std::get<ObservedTree>(tree);
    ports_ = std::move(ready.ports);
    return std::move(ready.members);
  }

  // An observed tree is what it is when the kill comes: a member that ended since it was ready
  // (a short-lived helper) is no longer there to kill. Its agent must be.
  void drop_ended(std::vector<Member>& members) const {
    for (const Member& m : members) {
      if (m.role == "agent" && reaper::pidfd_exited(m.pidfd.get())) {
        setup_failed(
            fmt::format("the agent (pid {}) exited after it was ready, before the kill "
                        "was requested{}",
                        m.pid, log_tail()));
      }
    }
    std::erase_if(members, [](const Member& m) { return reaper::pidfd_exited(m.pidfd.get()); });
  }

  // The first child of `parent` (a supervisor's agent), once it has forked it.
  pid_t await_child(pid_t parent) const {
    reaper::Backoff backoff;
    for (;;) {
      const reaper::ProcTable table = reaper::ProcTable::read("/proc", reaper::Detail::stat);
      for (const auto& p : table.all()) {
        if (p.ppid == parent) return p.pid;
      }
      if (Clock::now() > setup_deadline_) {
        setup_failed(
            fmt::format("the supervisor (pid {}) never started the agent{}", parent, log_tail()));
      }
      backoff.wait(setup_deadline_);
    }
  }

  std::vector<Member> collect_members(ReadinessChannel& ready, Census& census) {
    std::vector<Member> members;
    const int expected = scenario_.member_count();
    const bool inside = scenario_.setup.request == CaseSetup::Request::from_agent;
    while (static_cast<int>(members.size()) < expected || (inside && !inside_.adopted())) {
      auto got = ready.next(setup_deadline_);
      if (got.status != LineReader::Status::line) {
        setup_failed(fmt::format(
            "the fixture announced {} of {} members before {}{}", members.size(), expected,
            got.status == LineReader::Status::eof
                ? "its tree exited"
                : fmt::format("going {} ms without announcing another", options_.ready.count()),
            log_tail()));
      }
      auto a = parse_announcement(got.line);
      if (!a) {
        setup_failed("malformed readiness line from the fixture: '" + printable(got.line) + "'");
      }
      // The pid the member wrote is its own namespace's; the kernel told us who sent it.
      const pid_t ours = translate_announced_pid(a->pid, got.sender);
      if (ours == 0 && !is_transient(a->role)) {
        setup_failed(
            fmt::format("cannot find member {} (pid {} in its namespace, announced by pid {})",
                        a->role, a->pid, got.sender));
      }
      auto fd = ours != 0 ? reaper::pidfd_open(ours) : std::nullopt;
      if (!fd && !is_transient(a->role)) {
        setup_failed(
            fmt::format("member {} (pid {}) exited before the kill{}", a->role, ours, log_tail()));
      }
      if (a->role == InsideReaper::kRole && fd) {
        inside_.adopt(ours, std::move(*fd), census);  // the reaper's own, not a member
        continue;
      }
      // A transient member may be gone already, as it should be; it is no member of the tree the
      // reaper must kill.
      if (fd && !is_transient(a->role)) census.add_member(ours, a->role, fd->get());
      members.push_back(Member{ours, a->role, fd ? std::move(*fd) : reaper::UniqueFd()});
      // The deadline catches a tree that stalls, not one that is slow: a machine where a fork
      // takes 3 ms needs 10 s for wide-tree's 1,000 members. Each member is announced once, so
      // the wait stays bounded by the scenario's size.
      setup_deadline_ = std::max(setup_deadline_, Clock::now() + options_.ready);
    }
    return members;
  }

  // Transient members (a double fork's middle) must be gone, and self-stopping ones stopped,
  // before the kill: the tree the reaper meets is then the same every run. The transient ones
  // are then dropped: what the reaper must kill is the rest.
  void await_final_states(std::vector<Member>& members) {
    for (Member& m : members) {
      if (is_transient(m.role)) {
        await_gone(m);
      } else if (stopped_.count(m.role) != 0) {
        await_stopped(m);
      } else if (frozen_.count(m.role) != 0 && !await_frozen(m.pid, setup_deadline_)) {
        setup_failed("member " + m.role + " did not freeze its cgroup before the kill");
      }
    }
    std::erase_if(members, [&](const Member& m) { return is_transient(m.role); });
  }

  // A transient member exits, and is reaped where its parent reaps: a zombie left for a moment
  // would show in a reaper's snapshot in some runs and not in others.
  void await_gone(const Member& m) const {
    if (!m.pidfd) return;
    // A transient agent waits for its word, so that its children are up when it goes.
    if (m.role == scenario_.tree.role) reaper::pidfd_signal(m.pidfd.get(), SIGUSR1);
    if (!reaper::pidfd_wait_exit(m.pidfd.get(), reaper::time_left(setup_deadline_))) {
      setup_failed("transient member " + m.role + " did not exit before the kill");
    }
    // Reaped by its parent where the scenario says so, where the parent is a supervisor (it always
    // reaps the agent, and acts on that: exits, or signals the agent's group), or where the
    // parent shows it reaps.
    const bool declared = reaped_transient_.count(m.role) != 0 ||
                          (m.role == scenario_.tree.role && reaper_.supervises);
    reaper::Backoff backoff;
    while (reaper::pidfd_target(::getpid(), m.pidfd.get()).value_or(-1) != -1) {
      const auto self = reaper::ProcTable::read_one(m.pid, reaper::Detail::stat);
      if (!self || (!declared && !reaps(self->ppid))) return;  // a zombie on purpose, or gone
      if (Clock::now() > setup_deadline_) {
        setup_failed("transient member " + m.role +
                     " was not reaped by its parent before the kill");
      }
      backoff.wait(setup_deadline_);  // no event announces that another process reaped its child
    }
  }

  // `pid` reaps its children: PID 1 does, and so does a process that catches SIGCHLD or blocks
  // it to read it from a signalfd (catatonit). A supervisor that has not
  // yet reaped the agent may still forward a kill it would not forward a moment later.
  static bool reaps(pid_t pid) {
    if (pid == 1) return true;
    const auto has_sigchld = [pid](const char* field) {
      const std::string mask = reaper::status_field(pid, field);
      return !mask.empty() && ((std::stoull(mask, nullptr, 16) >> (SIGCHLD - 1)) & 1) != 0;
    };
    return has_sigchld("SigCgt") || has_sigchld("SigBlk");
  }

  // The tree the reaper is asked to kill is the one announced: a member that is already gone
  // would let a reaper that kills nothing pass, so the case is not judged at all.
  // A member the reaper's side itself signalled already (a supervisor acting on the agent's
  // exit) was not lost: it was killed, with the ledger's record to show it.
  static void require_intact(const std::vector<Member>& members, const SignalLedger* ledger) {
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

  // A member that died before the reaper signalled anything, or that catches no signal and yet
  // ended by exit() rather than by a signal, ended on its own: the reaper met a smaller tree than
  // the one announced, and whatever it did proves nothing about that member.
  static void require_no_unbidden_exit(const Census& census, const SignalLedger* ledger) {
    std::vector<std::string> gone;
    if (ledger != nullptr) gone = ledger->gone_before_the_reaper();
    for (auto& g : census.exited_unbidden()) {
      // "role (pid N, exit status S)": listed once, when not already gone before the reaper.
      const std::string who = g.substr(0, g.find(','));
      if (std::none_of(gone.begin(), gone.end(),
                       [&](const std::string& x) { return x.rfind(who, 0) == 0; })) {
        gone.push_back(std::move(g));
      }
    }
    if (gone.empty()) return;
    setup_failed(fmt::format(
        "member(s) ended on their own, not by the reaper: {} (a member meant to be gone before "
        "the kill is declared 'transient')",
        fmt::join(gone, "; ")));
  }

  // No event announces a stop of a process that is not our child: look at /proc, backing off
  // between looks (an exit ends the wait at once).
  void await_stopped(const Member& m) const {
    reaper::Backoff backoff;
    for (;;) {
      auto p = reaper::ProcTable::read_one(m.pid, reaper::Detail::stat);
      if (p && p->state == 'T') return;
      if (!p || Clock::now() > setup_deadline_) {
        setup_failed("member " + m.role + " did not stop itself before the kill");
      }
      backoff.wait(setup_deadline_, m.pidfd.get());
    }
  }

  static ReaperOutcome outcome_of(const ReaperHost::Reply& killed) {
    switch (killed.status) {
      case ReaperHost::Reply::Status::timeout:
        return {ReaperOutcome::Status::timed_out, killed.error};
      case ReaperHost::Reply::Status::ok:
        return {};
      default:
        return {ReaperOutcome::Status::failed, killed.error};
    }
  }

  // Who is still alive once the reaper is done, and which bystanders it touched.
  void audit_tree(CaseResult& r, std::vector<Member>& members, DeathWatch& deaths,
                  const Census& census, const ReaperHost& host, Bystanders& bystanders, pid_t agent,
                  Clock::time_point kill_start,
                  const std::vector<std::pair<pid_t, reaper::UniqueFd>>& left_running) {
    std::set<pid_t> sessions = {agent};  // the agent leads its own session
    for (const auto& m : r.members) sessions.insert(m.sid);
    AuditScope scope{kill_start,
                     options_.settle,
                     bystanders.pids_with_ancestors_below(host.pid()),
                     options_.on_host ? &sessions : nullptr,
                     {}};
    scope.outside.insert({1, host.pid(), ::getpid()});
    for (pid_t helper : reaper_helpers(host.pid(), agent)) scope.outside.insert(helper);
    for (const auto& [pid, fd] : left_running)
      scope.reaper_left_running.emplace_back(pid, fd.get());
    AuditResult audited = audit(members, deaths, census, scope);
    r.survivors = std::move(audited.survivors);
    r.all_dead_ms = audited.all_dead_ms;
    r.watched_ms = audited.watched_ms;
    bystanders.settle(Clock::now() + options_.settle);
    r.bystanders_hit = bystanders.hits();
    if (options_.on_host && !options_.keep) end_survivors(r.survivors, sessions);
  }

  // The command agent's ports that still accept connections. The holder is looked up before the
  // probe connects: the probe must not be what changes the answer.
  std::vector<OpenPort> open_ports() const {
    std::vector<OpenPort> out;
    for (const auto& [port, role] : ports_) {
      const pid_t holder = port_holder(port);
      // Still listening on any address of the case's network (127.0.0.2, a LAN address inside
      // it), or answering on loopback.
      if (port_listening(port) || port_accepting(port)) out.push_back({port, holder, role});
    }
    return out;
  }

  // On the host nothing ends a survivor for us: kill each through a pidfd, after checking it
  // is still in one of the tree's sessions (its pid may have been recycled since the audit).
  static void end_survivors(const std::vector<ProcessRecord>& survivors,
                            const std::set<pid_t>& sessions) {
    for (const auto& s : survivors) {
      auto fd = reaper::pidfd_open(s.pid);
      auto now = reaper::ProcTable::read_one(s.pid, reaper::Detail::stat);
      if (fd && now && sessions.count(now->sid) != 0) reaper::pidfd_signal(fd->get(), SIGKILL);
    }
  }

  // The fixture's own complaints, for a setup-error's reason.
  // Only the end is read: a command may have written megabytes before it failed.
  std::string log_tail() const {
    std::string s = read_tail(log_, 2000);
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    return s.empty()
               ? ""
               : (observed() ? " — the end of its output: " : " — fixture log: ") + printable(s);
  }

  bool is_transient(const std::string& role) const { return transient_.count(role) != 0; }

  const Scenario& scenario_;
  const ReaperChoice& reaper_;
  const CaseOptions& options_;
  const std::filesystem::path scratch_;
  const std::filesystem::path worktree_;
  const std::filesystem::path log_;
  const std::set<std::string> transient_;         // roles that exit before the kill
  const std::set<std::string> reaped_transient_;  // those of them their parent reaps
  const std::set<std::string> stopped_;           // roles that stop themselves before the kill
  const std::set<std::string> frozen_;            // roles that freeze their cgroup before the kill
  std::string path_;     // the PATH of the reaper and the tree ([case] path)
  InsideReaper inside_;  // the agent's own kill command, for a from-agent case
  reaper::UniqueFd log_fd_;
  Clock::time_point setup_deadline_;
  std::vector<std::pair<int, std::string>> ports_;  // port → the role that listens on it
};

}  // namespace

CaseResult observe_case(const Scenario& scenario, const ReaperChoice& reaper,
                        const CaseOptions& options, const std::filesystem::path& scratch) {
  return CaseBody(scenario, reaper, options, scratch).run();
}

}  // namespace reapcheck
