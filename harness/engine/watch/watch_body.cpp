#include "harness/engine/watch/watch_body.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "harness/engine/run/observation_message.h"
#include "harness/engine/stages/context.h"
#include "harness/engine/stages/evidence.h"
#include "harness/engine/stages/set_up.h"
#include "harness/engine/tree/audit.h"
#include "harness/engine/tree/observed_tree.h"
#include "harness/engine/watch/lineage.h"
#include "harness/engine/watch/test_process.h"
#include "reaper/os/pidfd.h"

namespace reapcheck {
namespace {

using Clock = std::chrono::steady_clock;
using reaper::Detail;

// How long the kernel's fork events and signals may take to reach the case.
constexpr std::chrono::milliseconds kSyncBound{2000};
// The runner the command is spawned by: in a session of its own, stdout and stderr a pipe and no
// terminal, as a CI runner starts a step (pgroup's spawn gives it the seed's PTY, whose hang-up
// at the command's exit would end what it just started). It is never asked to kill anything.
constexpr std::string_view kSpawner = "proc-pidfd";
// The bystander that looks like the command itself (Bystanders::begin_namesake).
constexpr std::string_view kNamesake = "namesake";
// The bystander a kill by a stale pid meets (SignalLedger::set_stray_decoys).
constexpr std::string_view kDecoy = "decoy-on-a-freed-pid";

// The parts, by test: the command's own first, the others as they are first met.
class Parts {
 public:
  CaseObservation& of(const TestOf& t) {
    const auto it = std::find_if(parts_.begin(), parts_.end(),
                                 [&](const WatchPart& p) { return p.test == t.name; });
    if (it != parts_.end()) return it->observed;
    parts_.push_back({t.name, {}});
    return parts_.back().observed;
  }
  std::vector<WatchPart> take() { return std::move(parts_); }

 private:
  std::vector<WatchPart> parts_{WatchPart{}};
};

// How a leak left the reach of what started it, from its session, group and parent now.
std::string escape_of(const ProcessRecord& leak, const reaper::ProcInfo& command,
                      const Lineage& lineage, const Census& census) {
  std::vector<std::string> how;
  const auto parent = census.born_of(leak.pid);
  if (leak.sid != command.sid) {
    how.push_back(leak.sid == leak.pid ? "called setsid() (a session of its own)"
                  : parent && leak.sid == *parent
                      ? "in the session the process that forked it made with setsid()"
                      : fmt::format("in session {}, not the command's", leak.sid));
  } else if (leak.pgid != command.pgid) {
    how.push_back(fmt::format("left the command's process group (group {})", leak.pgid));
  }
  if (!parent || leak.ppid == *parent) return fmt::format("{}", fmt::join(how, "; "));
  const std::string adopter = leak.ppid == 1 ? "init" : fmt::format("pid {}", leak.ppid);
  const auto grand = census.born_of(*parent);
  const auto chain = lineage.chain(*parent);
  // The middle of a double fork: a fork of its own parent that ran no program of its own, or
  // one gone before its name could be read.
  const std::vector<std::string> middle_ran = census.forked_as(*parent);
  if (grand && (middle_ran.empty() || middle_ran == census.forked_as(*grand))) {
    const auto above = lineage.chain(*grand);
    how.push_back(fmt::format(
        "a double fork: pid {}, which {} forked, forked it and exited, and {} adopted it", *parent,
        above.empty() ? fmt::format("pid {}", *grand) : link_name(above.front()), adopter));
  } else {
    how.push_back(fmt::format("orphaned: {} that forked it has exited, and {} adopted it",
                              link_name(chain.front()), adopter));
  }
  return fmt::format("{}", fmt::join(how, "; "));
}

// The suite's processes alive once the command has exited and `settle` has passed: the leaks.
std::vector<const reaper::ProcInfo*> outliving(const reaper::ProcTable& table,
                                               const Lineage& lineage, pid_t host) {
  std::vector<const reaper::ProcInfo*> out;
  for (const auto& p : table.all()) {
    if (p.pid == 1 || p.pid == host || p.state == 'Z' || !lineage.of_command(p.pid)) continue;
    out.push_back(&p);
  }
  return out;
}

void wait_for_ends(const std::vector<const reaper::ProcInfo*>& procs, Clock::time_point until) {
  std::vector<reaper::UniqueFd> held;
  for (const auto* p : procs) {
    if (auto fd = reaper::pidfd_open(p->pid)) held.push_back(std::move(*fd));
  }
  for (const auto& fd : held) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
    if (left.count() <= 0) return;
    reaper::pidfd_wait_exit(fd.get(), left);
  }
}

void add_leaks(CaseContext& ctx, const Lineage& lineage, const reaper::ProcInfo& command,
               pid_t host, Parts& parts) {
  const auto first = ctx.processes->table(Detail::argv);
  wait_for_ends(outliving(first, lineage, host), Clock::now() + ctx.options.settle);
  const auto table = ctx.processes->table(Detail::argv);
  std::map<pid_t, std::string> roles;
  std::vector<pid_t> pids;
  for (const auto* p : outliving(table, lineage, host)) {
    ProcessRecord leak = record_of(*p, role_of(*p));
    leak.escape = escape_of(leak, command, lineage, ctx.census);
    const auto chain = lineage.chain(p->pid);
    for (size_t i = 1; i < chain.size(); ++i) leak.started_by.push_back(link_name(chain[i]));
    const TestOf test = lineage.test(chain);
    roles[p->pid] = leak.role;
    pids.push_back(p->pid);
    parts.of(test).survivors.push_back(std::move(leak));
  }
  for (const auto& [port, holder] : ctx.processes->ports_held_by(pids)) {
    parts.of(lineage.test(holder)).open_ports.push_back({port, holder, roles[holder]});
  }
}

// A signal of one test's process that reached another test's: not that test's business, and a
// hit on a process it never started.
void mark_other_tests(SignalRecord& rec, const TestOf& test, const Lineage& lineage) {
  for (Party& p : rec.reached) {
    if (p.kind != Party::Kind::reaper || !lineage.of_command(p.pid)) continue;
    // Its own test's by process, not by name: tests of one program and one name (a CTest
    // listing it cannot read) are still each other's others.
    const TestOf theirs = lineage.test(p.pid);
    if (theirs.pid == test.pid) continue;
    p.kind = Party::Kind::bystander;
    p.role = fmt::format("{}'s {}", theirs.name.empty() ? "the command" : theirs.name, p.role);
  }
}

void add_signals(CaseContext& ctx, const Lineage& lineage, Clock::time_point epoch, Parts& parts) {
  if (!ctx.ledger) return;
  if (!ctx.ledger->sync_kernel(Clock::now() + kSyncBound)) {
    parts.of({}).missing_evidence.emplace_back(
        "signals the kernel generated in the last moments, which did not arrive");
  }
  std::vector<SignalRecord> all = ctx.ledger->records(epoch);
  for (SignalRecord& rec : all) {
    if (!rec.counts() || rec.from_reaper_host()) continue;
    const TestOf test = lineage.test(rec.sender.pid);
    mark_other_tests(rec, test, lineage);
    parts.of(test).signals.push_back(rec);
  }
  ctx.bystanders->settle(Clock::now() + kSyncBound);
  std::vector<BystanderHit> hits = ctx.bystanders->hits();
  name_senders(hits, all);
  for (BystanderHit& hit : hits) {
    const TestOf test = hit.sender_pid != 0 && lineage.of_command(hit.sender_pid)
                            ? lineage.test(hit.sender_pid)
                            : TestOf{};
    parts.of(test).bystanders_hit.push_back(std::move(hit));
  }
}

// Every test that started a process, with its process as the part's member.
void add_tests(const CaseContext& ctx, const Lineage& lineage, Parts& parts) {
  std::set<pid_t> seen;
  for (const auto& [child, parent] : ctx.census.births()) {
    if (!lineage.of_command(child)) continue;
    const TestOf test = lineage.test(child);
    if (test.name.empty() || !seen.insert(test.pid).second) continue;
    ProcessRecord member;
    member.pid = test.pid;
    member.role = test.name;
    member.argv = ctx.census.forked_as(test.pid);
    parts.of(test).members.push_back(std::move(member));
  }
}

void run_command(CaseContext& ctx, std::chrono::milliseconds timeout, WatchObservation& out,
                 Parts& parts) {
  ReaperHost* host = nullptr;
  ctx.start_host = [&host](const HostPlan& plan) {
    HostPlan waiting = plan;
    waiting.wait_agent = true;
    waiting.hold_exits = true;
    auto made = std::make_unique<ReaperHost>(waiting);
    host = made.get();
    return made;
  };
  ctx.census.keep_forkers_names();  // for the chains that started the leaks
  start_bystanders(ctx);
  // Beside the look-alike in the folder, one that looks like the command itself (`cargo test`,
  // named cargo): a kill by the command's name or command line reaches it. Both are up before
  // the command starts, whatever the scheduler does.
  ctx.bystanders->begin_namesake(std::string(kNamesake), ctx.scenario.agent->command,
                                 ctx.scratch / "namesake");
  ctx.bystanders->await_begun(ctx.setup_deadline);
  const Spawned spawned = spawn_agent(ctx);
  parts.of({}).missing_evidence = spawned.missing_evidence;
  // Refused at once rather than after the whole suite: the sandbox's end ends the command.
  if (!ctx.kernel_signals_seen) {
    setup_failed(
        "watch needs the kernel's fork events to tell the command's processes by lineage "
        "(root, tracefs, the initial PID namespace): " +
        fmt::format("{}", fmt::join(spawned.missing_evidence, "; ")));
  }
  // The command's ids, for how a leak got out of its reach: as spawned (a session of its own),
  // whether or not it is still there to read.
  reaper::ProcInfo command;
  command.pid = command.pgid = command.sid = spawned.agent;
  ctx.bystander_watch->note_attributes();
  if (ctx.ledger) {
    // A kill by a stale pid meets a process, as it would in production once the pid is reused.
    ctx.ledger->set_stray_decoys(
        [&ctx](pid_t pid) { return ctx.bystanders->try_place_decoy(pid, std::string(kDecoy)); });
  }
  const auto started = Clock::now();
  const Orchestrator::Reply ended = host->wait_agent_exit(started + timeout);
  out.command_ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  if (ended.status != Orchestrator::Reply::Status::ok) {
    // Its output went to the user as it came: nothing of it to repeat here.
    setup_failed(ended.waited_out ? fmt::format("the command did not end within {} s (--timeout)",
                                                timeout.count() / 1000)
                                  : ended.error);
  }
  out.exit_code = ended.exit_code;
  out.exit_signal = ended.exit_signal;
  if (ctx.ledger) {
    // A leftover's calls, held until the command's end (its "return"), go their way; no more
    // decoys then: the bystanders are read from here on.
    ctx.ledger->release_after_return();
    ctx.ledger->set_stray_decoys({});
  }
  ctx.ledger->sync_kernel(Clock::now() + kSyncBound);
  Lineage lineage(ctx.census, *ctx.bystanders, spawned.agent, host->pid(), ctx.worktree);
  lineage.learn_ctest_names({"PATH=" + agent_path(ctx), "LC_ALL=C"}, Clock::now() + kSyncBound);
  add_tests(ctx, lineage, parts);
  add_leaks(ctx, lineage, command, host->pid(), parts);
  add_signals(ctx, lineage, started, parts);
}

}  // namespace

WatchObservation observe_watch(const Scenario& scenario, const CaseOptions& options,
                               const std::filesystem::path& scratch,
                               std::chrono::milliseconds timeout) {
  WatchObservation out;
  Parts parts;
  const std::unique_ptr<Placement> placement = placement_for(options);
  const std::optional<ReaperChoice> spawner = resolve_reaper(kSpawner, options.layout);
  try {
    CaseContext ctx(scenario, *spawner, options, *placement, scratch);
    run_command(ctx, timeout, out, parts);
  } catch (const Blocked& b) {
    parts.of({}).blocked = b.blocker;
  } catch (const std::exception& e) {
    parts.of({}).blocked = Blocker{Blocker::Kind::setup_failed, e.what()};
  }
  out.parts = parts.take();
  return out;
}

std::string write_watch_message(const WatchObservation& seen) {
  nlohmann::json parts = nlohmann::json::array();
  for (size_t i = 0; i < seen.parts.size(); ++i) {
    parts.push_back({{"test", seen.parts[i].test},
                     {"message", write_observation_message({i, seen.parts[i].observed})}});
  }
  return nlohmann::json{{"exit_code", seen.exit_code},
                        {"exit_signal", seen.exit_signal},
                        {"command_ms", seen.command_ms},
                        {"parts", parts}}
      .dump();
}

WatchObservation read_watch_message(std::string_view text) {
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("parts")) {
    throw std::runtime_error("the watch's sandbox sent no watch message: " + std::string(text));
  }
  WatchObservation out;
  out.exit_code = j.value("exit_code", -1);
  out.exit_signal = j.value("exit_signal", 0);
  out.command_ms = j.value("command_ms", 0.0);
  for (const auto& p : j.at("parts")) {
    out.parts.push_back({p.value("test", std::string()),
                         read_observation_message(p.at("message").get<std::string>()).observed});
  }
  return out;
}

}  // namespace reapcheck
