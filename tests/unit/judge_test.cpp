// The verdict function as a table: each row is a set of observations and the verdict and reason
// they must give.
#include "harness/model/judge.h"

#include <gtest/gtest.h>

namespace reapcheck {
namespace {

ProcessRecord process(pid_t pid, const std::string& role) {
  return {pid, 1, pid, pid, "S", role, {"perl", "tree.pl"}};
}

SignalRecord call(Party::Kind sender, const std::string& target, std::vector<Party> reached,
                  const std::string& signal = "SIGKILL", bool by_pidfd = false) {
  SignalRecord r;
  r.sender = {sender, 9, sender == Party::Kind::reaper ? "sh" : "agent"};
  r.call = by_pidfd ? "pidfd_send_signal" : "kill";
  r.target = target;
  r.by_pidfd = by_pidfd;
  r.reached = std::move(reached);
  r.signal = signal;
  r.result = r.reached.empty() ? "no such process" : "sent";
  return r;
}

Observations clean() {
  Observations o;
  o.members = {process(3, "agent"), process(5, "child")};
  o.settle_ms = 1000;
  o.watched_ms = 1000;
  o.all_dead_ms = 4;
  return o;
}

struct Row {
  std::string name;
  Observations seen;
  Verdict verdict;
  std::string reason_has;
};

// What the members did: all died, survived, held a port; the reaper failed; the races.
void outcome_rows(std::vector<Row>& out) {
  out.push_back({"every member died", clean(), Verdict::pass, "all 2 members dead 4 ms"});

  Observations leak = clean();
  leak.survivors = {process(5, "escaped")};
  leak.all_dead_ms = -1;
  out.push_back({"a survivor", leak, Verdict::leak,
                 "alive and idle at the settle bound, 1000 ms after it returned (--settle)): "
                 "escaped (pid 5"});
  Observations busy = leak;
  busy.busy_at_bound = true;
  busy.watched_ms = 11000;
  out.push_back({"a survivor still busy when the wait ended", busy, Verdict::leak,
                 "still running or dying 11000 ms after it returned, when the wait for them "
                 "ended: --settle 1000 and 10 s more"});
  Observations released = leak;
  released.survivors = {process(9, "holder")};
  released.ended_by_harness = {9};
  out.push_back({"a race's held member the reaper never reached", released, Verdict::leak,
                 "holder (pid 9, pgid 9, sid 9, state S: perl tree.pl), never reached by the "
                 "reaper: the harness ended it after the race"});
  Observations unsignalled = clean();
  unsignalled.late = {{process(7, "agent"), -1, true}};
  out.push_back({"a member that ended by itself before the return, never signalled", unsignalled,
                 Verdict::late, "exited by itself before the return, never signalled"});

  Observations idle = leak;
  idle.watched_ms = 3;
  out.push_back({"a survivor seen idle with nothing left to end it", idle, Verdict::leak,
                 "alive and idle 3 ms after it returned, with nothing left that could end them"});

  Observations port = clean();
  port.open_ports = {{41002, 9, "watcher"}};
  out.push_back({"a port still answering", port, Verdict::leak,
                 "port 41002 (watcher) still accepting, held by pid 9"});

  Observations hit = leak;
  hit.bystanders_hit = {{7, "sibling-agent", "SIGKILL", 4, 0}};
  hit.reaper_outcome = {ReaperOutcome::Status::failed, "exited with status 1"};
  out.push_back({"a bystander hit outranks a failure and a leak", hit, Verdict::bystander_hit,
                 "sibling-agent (pid 7) got SIGKILL from pid 4; and 1 member(s) survived"});

  // Harm done with no signal is a hit too: a bystander left frozen, or made to exit.
  Observations frozen = clean();
  frozen.bystanders_hit = {{3, "reaper-group", "frozen", 0, 0}};
  out.push_back(
      {"a bystander left frozen", frozen, Verdict::bystander_hit,
       "reaper-group (pid 3) got frozen (no signal: its cgroup was frozen, and left so)"});
  Observations exited = clean();
  exited.bystanders_hit = {{3, "reaper-group", "exit(0)", 0, 0}};
  out.push_back({"a bystander made to exit", exited, Verdict::bystander_hit,
                 "1 hit(s) on bystanders: reaper-group (pid 3) got exit(0) (no signal: it never "
                 "exits by itself"});

  Observations timeout = leak;
  timeout.reaper_outcome = {ReaperOutcome::Status::timed_out, "no reply before the deadline"};
  out.push_back({"a timeout outranks a leak", timeout, Verdict::reaper_timeout,
                 "no reply before the deadline"});

  Observations failed = leak;
  failed.reaper_outcome = {ReaperOutcome::Status::failed, "'kill' exited with status 3"};
  out.push_back({"a failure outranks a leak", failed, Verdict::reaper_error, "status 3"});

  Observations unopened = clean();
  unopened.race = RaceRecord{};
  unopened.race->detail = "the pid 5 was still taken";
  unopened.race->attempts = 3;
  out.push_back({"a race that never opened proves nothing", unopened, Verdict::skipped,
                 "never opened in 3 attempts; the last: the pid 5 was still taken"});

  Observations unopened_leak = leak;
  unopened_leak.race = unopened.race;
  out.push_back({"an unopened race does not hide a leak", unopened_leak, Verdict::leak, "escaped"});

  Observations opened = clean();
  opened.race = RaceRecord{};
  opened.race->opened = true;
  out.push_back({"an opened race with nothing wrong passes", opened, Verdict::pass, "all 2"});
}

// What the signal ledger recorded.
Observations ledger_rows(std::vector<Row>& out) {
  Observations stray = clean();
  stray.signals = {call(Party::Kind::reaper, "group 6", {})};
  out.push_back({"a signal to a group where nothing was", stray, Verdict::stray_signal,
                 "kill(group 6, SIGKILL) → nothing there"});

  Observations zombies = clean();
  zombies.signals = {
      call(Party::Kind::reaper, "pid 5", {{Party::Kind::member, 5, "child", false}})};
  out.push_back({"a signal to a pid that held only a zombie", zombies, Verdict::stray_signal,
                 "(pid 5, dead)"});

  Observations pinned = clean();
  pinned.signals = {
      call(Party::Kind::reaper, "pid 5", {{Party::Kind::member, 5, "child", false}}, "SIGCONT")};
  pinned.signals[0].pinned = true;
  out.push_back({"a signal to the sender's own unreaped child cannot reach a recycled pid", pinned,
                 Verdict::pass, "all 2"});

  Observations by_pidfd = clean();
  by_pidfd.signals = {call(Party::Kind::reaper, "pidfd of a reaped process", {}, "SIGKILL", true)};
  out.push_back({"a pidfd cannot reach a recycled pid", by_pidfd, Verdict::pass, "all 2"});

  Observations probe = clean();
  probe.signals = {call(Party::Kind::reaper, "pid 5", {}, "0")};
  out.push_back({"the existence probe delivers nothing", probe, Verdict::pass, "all 2"});

  Observations members_own = clean();
  members_own.signals = {
      call(Party::Kind::member, "pid 5", {}),
      call(Party::Kind::tree, "every process", {{Party::Kind::bystander, 7, "sibling-agent"}})};
  out.push_back(
      {"members' own signals never count against the reaper", members_own, Verdict::pass, "all 2"});

  Observations sent = clean();
  sent.signals = {
      call(Party::Kind::reaper, "every process",
           {{Party::Kind::member, 3, "agent"}, {Party::Kind::bystander, 7, "sibling-agent"}})};
  out.push_back({"the ledger shows a hit no bystander reported", sent, Verdict::bystander_hit,
                 "reaper sh (pid 9) [] kill(every process, SIGKILL) → member agent (pid 3), "
                 "bystander sibling-agent (pid 7)"});

  Observations caller = clean();
  caller.signals = {
      call(Party::Kind::reaper, "pid 3", {{Party::Kind::harness, 3, "reaper host"}}, "SIGTERM")};
  out.push_back({"signalling the reaper host is a hit", caller, Verdict::bystander_hit,
                 "harness reaper host (pid 3)"});

  return stray;
}

// Lateness, the order of verdicts, missing evidence, and cases that are not judged.
void other_rows(std::vector<Row>& out, const Observations& leak, const Observations& stray) {
  Observations late = clean();
  late.late = {{process(5, "child"), 700}};
  late.reaper_left_running = {process(12, "reaper")};
  out.push_back({"a member alive when the reaper returned", late, Verdict::late,
                 "child (pid 5, pgid 5, sid 5, state S: perl tree.pl) died 700 ms after; the "
                 "reaper left running"});

  Observations restart = clean();
  restart.rebind_failures = {{41001, "server", "EADDRINUSE", 9}};
  out.push_back({"a port still bound when the reaper returned (the restart check)", restart,
                 Verdict::late,
                 "a restarting dev server could not bind its port: port 41001 (server) could not "
                 "be bound again: EADDRINUSE, still held by pid 9"});

  Observations restart_and_late = late;
  restart_and_late.rebind_failures = restart.rebind_failures;
  out.push_back({"lateness and the restart check are told together", restart_and_late,
                 Verdict::late, "died 700 ms after; right after the reaper returned"});

  Observations restart_and_leak = clean();
  restart_and_leak.open_ports = {{41002, 9, "watcher"}};
  restart_and_leak.rebind_failures = restart.rebind_failures;
  out.push_back({"a port still answering after the settle outranks the restart check",
                 restart_and_leak, Verdict::leak, "port 41002 (watcher) still accepting"});

  Observations restart_and_stray = restart;
  restart_and_stray.signals = stray.signals;
  out.push_back({"a stray signal outranks the restart check", restart_and_stray,
                 Verdict::stray_signal, "group 6"});

  Observations leak_and_stray = leak;
  leak_and_stray.signals = stray.signals;
  leak_and_stray.late = late.late;
  out.push_back(
      {"a leak outranks a stray signal and lateness", leak_and_stray, Verdict::leak, "escaped"});

  Observations stray_and_late = late;
  stray_and_late.signals = stray.signals;
  out.push_back(
      {"a stray signal outranks lateness", stray_and_late, Verdict::stray_signal, "group 6"});

  Observations blind = clean();
  blind.missing_evidence = {"the signal ledger (no seccomp here)"};
  out.push_back({"a pass says what evidence it lacked", blind, Verdict::pass,
                 "(without: the signal ledger (no seccomp here))"});

  Observations skip = leak;
  skip.blocked = Blocker{Blocker::Kind::declared_skip, "the agent is its namespace's init"};
  out.push_back({"a declared skip", skip, Verdict::skipped,
                 "declared not applicable: the agent is its namespace's init"});

  Observations unsupported;
  unsupported.blocked = Blocker{Blocker::Kind::unsupported, "no cgroup v2"};
  out.push_back({"a machine that cannot run it", unsupported, Verdict::skipped, "no cgroup v2"});

  Observations broken;
  broken.blocked = Blocker{Blocker::Kind::setup_failed, "the fixture announced 1 of 3 members"};
  out.push_back({"a case that could not be built", broken, Verdict::setup_error, "1 of 3"});
}

std::vector<Row> rows() {
  std::vector<Row> out;
  outcome_rows(out);
  const Observations stray = ledger_rows(out);
  Observations leak = clean();
  leak.survivors = {process(5, "escaped")};
  leak.all_dead_ms = -1;
  other_rows(out, leak, stray);
  return out;
}

TEST(Judge, DecidesFromObservationsAlone) {
  for (const Row& row : rows()) {
    const Judgement j = judge(row.seen);
    EXPECT_EQ(j.verdict, row.verdict) << row.name << ": " << j.reason;
    EXPECT_NE(j.reason.find(row.reason_has), std::string::npos)
        << row.name << ": '" << j.reason << "' lacks '" << row.reason_has << "'";
  }
}

}  // namespace
}  // namespace reapcheck
