// The result model: what every report (JSON, JUnit, terminal) is written from. A case's
// Observations are what the harness saw; its verdict is judged from them (judge.h) and nothing
// else.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
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
  std::optional<RaceRecord> race;
  int settle_ms = 0;        // how long members had to die after the reaper returned
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
  std::string expected_reason;  // why the reaper's expectations declare a weakness, if they do
  double tree_ms = 0;           // agent spawn request until every member announced itself
  double kill_ms = 0;           // kill request until the reaper reported done
  double case_ms = 0;           // the whole case, sandbox set-up to teardown

  bool as_expected() const { return meets_expectation(verdict, expected); }
};

struct RunResult {
  std::vector<CaseResult> cases;
  double wall_s = 0;
  int grace_ms = 0;
  int repeat = 1;
};

}  // namespace reapcheck
