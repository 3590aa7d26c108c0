// The result model: what every report (JSON, JUnit, terminal) is written from. A case's
// Observations are what the harness saw; its verdict is judged from them (judge.h) and nothing
// else.
#pragma once

#include <sys/types.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/model/scenario.h"
#include "harness/model/verdict.h"

namespace reapcheck {

// A process as the audit saw it. Pids are those of the case's sandbox PID namespace.
struct ProcessRecord {
  pid_t pid = 0;
  pid_t ppid = 0;
  pid_t pgid = 0;
  pid_t sid = 0;
  std::string state;
  std::string role;  // the role the fixture announced; "unannounced" for processes it did not
  std::vector<std::string> argv;

  std::string command_line() const;  // argv joined by spaces
};

struct BystanderHit {
  pid_t pid = 0;
  std::string role;
  std::string signal;
  pid_t sender_pid = 0;  // 0: the kernel sent it, or it could not be caught (SIGKILL, SIGSTOP)
  int si_code = 0;       // as the bystander's handler saw it; 0 where it could not be caught

  // "from pid 7", "from the kernel", "sender unknown: SIGKILL cannot be caught"
  std::string sender() const;
};

// A port the scenario's agent listened on that still accepts connections after the kill.
struct OpenPort {
  int port = 0;
  pid_t pid = 0;  // the holder, 0 when not found
  std::string role;
};

// The restart check: a port of the tree that could not be bound again right after the reaper
// returned, as a dev server restarted at that moment binds it — once what was already dying had
// finished dying.
struct RebindFailure {
  int port = 0;
  std::string role;   // the role that listened there
  std::string error;  // what bind() said: "EADDRINUSE"
  pid_t holder = 0;   // the process still listening there, 0 when not found
};

// A PID-reuse race: whether the decoy took the recycled id while the reaper was still at work.
struct RaceRecord {
  BystanderKind kind = BystanderKind::recycled_pid;  // recycled_pid or recycled_pgid
  std::string target;     // the member whose pid or group id was recycled
  pid_t target_id = 0;    // that pid or pgid
  pid_t decoy_pid = 0;    // 0 when no decoy was placed
  bool opened = false;    // the decoy was in place before the reaper reported done
  double placed_ms = -1;  // after the kill request
  std::string detail;
  int attempts = 1;  // cases run until the window opened (see run_case)
};

// Who a process is to the case, as the signal ledger resolved it at one instant.
struct Party {
  enum class Kind {
    member,  // an announced member of the tree
    tree,    // of the tree but not announced (a descendant of a member, or in a member's session)
    reaper,  // the reaper's own processes: what the reaper host started that is not the tree
    bystander,  // a process the reaper must leave alone (sibling agent, lookalike, decoy, ...)
    harness,    // the case runner or the reaper host
  } kind = Kind::reaper;
  pid_t pid = 0;
  std::string role;   // the member's or bystander's role; the harness process's name; else argv[0]
  bool alive = true;  // false for a zombie: dead, its pid not yet free

  std::string label() const;  // "bystander sibling-agent (pid 7)", "(dead)" for a zombie
};

std::string_view to_string(Party::Kind kind);

// One signal-sending system call made inside the case, recorded while its sender waited (seccomp
// user notification): who sent it, what it addressed, and what that held at that instant.
struct SignalRecord {
  double at_ms = 0;  // after the kill request; negative before it
  Party sender;
  std::vector<std::string> sender_argv;
  std::string call;    // kill, tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo, pidfd_send_signal
  std::string target;  // as written: "pid 7", "group 5", "its own group", "every process", "pidfd"
  bool by_pidfd = false;  // addressed through a pidfd: it cannot reach a recycled pid
  // Everything it reached was the sender's own child, exited and not yet reaped: the id stays
  // taken until the sender reaps it, so no recycled id could be reached (timeout(1) sends its
  // child SIGCONT after the SIGTERM that ended it).
  bool pinned = false;
  std::vector<Party> reached;  // what the target held at that instant; empty: nothing at all
  std::string signal;          // "SIGKILL"; "0" for the existence probe, which delivers nothing
  // What the call does, from the target as resolved while the sender waited: "sent", "no such
  // process", "invalid signal". The listener lets the call continue and cannot see its return.
  std::string result;

  // Made by the reaper's side, with a real signal: the records a verdict is drawn from.
  bool counts() const { return sender.kind == Party::Kind::reaper && signal != "0"; }
  // Reached a process outside the tree.
  bool hit_outside() const;
  // Addressed by pid or group id to where nothing lived — no process, or only zombies whose ids
  // are about to be free: the latent pid-reuse race. (The ledger lets every death already under
  // way finish before it resolves such a call, so this does not depend on scheduling.)
  bool stray() const;

  // One line: "+12.3 ms reaper sh (pid 9) [sh -c ...] kill(pid 7, SIGTERM) → bystander
  // sibling-agent (pid 7): sent"; the sender's argv cut to `argv_width` characters.
  std::string summary(size_t argv_width = std::string::npos) const;
};

// A member that was alive, and not dying, when the reaper reported done.
struct LateMember {
  ProcessRecord process;
  double died_after_ms = -1;  // after the reaper returned; -1: it did not die within the settle
};

// Why a case never reached the kill, when it did not.
struct Blocker {
  enum class Kind {
    declared_skip,  // the reaper's expectations say the scenario cannot apply to it
    unsupported,    // this machine cannot run the case (no namespaces, no cgroup v2, no program)
    setup_failed,   // the harness could not build the case
  } kind = Kind::setup_failed;
  std::string reason;
};

// How the reaper's kill ended, as the runner saw it.
struct ReaperOutcome {
  enum class Status { done, failed, timed_out } status = Status::done;
  std::string message;  // why it failed or timed out
};

// Everything a case observed: the only input to its verdict.
struct Observations {
  std::optional<Blocker> blocked;  // set when the case never reached the kill
  ReaperOutcome reaper_outcome;
  std::vector<ProcessRecord> members;  // the tree as announced, just before the kill
  std::vector<ProcessRecord> survivors;
  std::vector<BystanderHit> bystanders_hit;
  std::vector<OpenPort> open_ports;
  std::vector<std::string> reaper_steps;  // what the reaper reported doing
  std::vector<SignalRecord> signals;      // the signal ledger, in order
  // Evidence this case could not collect, and why (no seccomp here, say); empty when complete.
  std::vector<std::string> missing_evidence;
  std::vector<LateMember> late;  // members alive and not dying when the reaper returned
  std::vector<RebindFailure> rebind_failures;  // ports still bound when the reaper returned
  // The reaper's own processes still running when it returned (a detached helper, say).
  std::vector<ProcessRecord> reaper_left_running;
  std::optional<RaceRecord> race;
  int settle_ms = 0;        // the longest members were watched after the reaper returned
  double watched_ms = 0;    // how long they were: until nothing more could happen
  double all_dead_ms = -1;  // kill request until the last member died; -1 if some never did
};

struct CaseResult : Observations {
  std::string scenario;
  std::string reaper;
  std::vector<std::string> tags;  // the scenario's
  int run = 1;                    // 1-based index under --repeat
  Verdict verdict = Verdict::setup_error;
  std::string reason;  // why the verdict is what it is
  Verdict expected = Verdict::pass;
  std::vector<Verdict> expected_also;  // the weakness's other forms (expectations.h's `also`)
  // Why the reaper's expectations declare a weakness, if they do; kept under --expect-pass,
  // where `expected` is pass.
  std::string expected_reason;
  double tree_ms = 0;  // agent spawn request until every member announced itself
  double kill_ms = 0;  // kill request until the reaper reported done
  double case_ms = 0;  // the whole case, sandbox set-up to teardown
  // Where the case's time went, in order: the body's phases (bystanders, spawn, tree, kill,
  // audit, evidence) and the sandbox's own set-up and teardown around them.
  std::vector<std::pair<std::string, double>> phases_ms;
  // CPU time (user + system), to show a loop that spins where it should wait: the reaper host's
  // own during the kill, what it waited for meanwhile (its ps, an exec: command, the agent), and
  // the case runner's for the whole case (the ledger's thread included).
  double reaper_cpu_ms = 0;
  double reaper_children_cpu_ms = 0;
  double harness_cpu_ms = 0;

  bool as_expected() const {
    return meets_expectation(verdict, expected) ||
           is_declared_form(verdict, expected, expected_also);
  }
};

// What a report teaches about a scenario beside its verdicts (notes.h computes it): what the
// scenario is, how its members leave the agent's reach, and which reapers pass it.
struct ScenarioNotes {
  std::string description;
  std::vector<std::string> escapes;  // "escaped: calls setsid(), so ...", one per escaping member
  std::vector<std::string> passing;  // reaper ids expected to pass it, the most robust first
  std::string technique;             // how passing.front() kills, in one line
};

// Where and how a run was made: the header of the HTML matrix and the JUnit suites.
struct RunInfo {
  std::string version;  // reapcheck's
  std::string kernel;   // uname -r
  std::string host;
  std::string started;  // UTC, "2026-11-30T09:00:00" (JUnit's timestamp form)
  std::vector<std::pair<std::string, std::string>> options;  // "grace" → "300 ms", as run
  std::string shard;  // "2/3" for one slice of a sharded matrix; the slices when merged
  // The whole plan, before any sharding: merged slices are put back in this order.
  std::vector<std::string> plan_scenarios;
  std::vector<std::string> plan_reapers;
};

struct RunResult {
  std::vector<CaseResult> cases;
  double wall_s = 0;
  int grace_ms = 0;
  int repeat = 1;
  RunInfo info;
  std::map<std::string, ScenarioNotes> scenarios;  // by scenario id
};

}  // namespace reapcheck
