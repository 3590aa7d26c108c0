// An agent: the process a reaper spawned and must later kill, with everything under it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "reaper/os/unique_fd.h"

namespace reaper {

struct AgentSpec {
  std::vector<std::string> argv;  // argv[0] is looked up in PATH
  std::string cwd;                // the agent's worktree
  std::vector<std::string> env;   // the whole environment, KEY=VALUE
  std::vector<int> inherit_fds;   // kept open across exec at the same numbers
  int output_fd = -1;             // stdout and stderr when not on a PTY; -1 means /dev/null
  // Signals blocked in the mask the agent starts with, as a launcher that had them blocked
  // hands them down to what it starts (empty: a clean mask).
  std::vector<int> blocked_signals;
};

// How the agent is started. Every way puts it in a session of its own, as the seed
// orchestrator does, so that its pid is also its pgid and sid.
struct SpawnOptions {
  bool pty = false;                // the seed: openpty, the slave as controlling terminal and stdio
  std::string cgroup;              // a cgroup v2 directory the agent joins before exec
  bool new_pid_namespace = false;  // the agent is PID 1 of a PID namespace of its own
  // SIGKILL to the agent when the process that spawned it dies (PR_SET_PDEATHSIG): as the init
  // of its own PID namespace, its whole namespace dies with it.
  bool die_with_parent = false;
};

class Agent {
 public:
  // `is_child`: false when another process (a shim) is the agent's parent; then the agent is
  // never reaped here, and has exited once its pidfd says so.
  Agent(pid_t pid, UniqueFd pidfd, UniqueFd pty_master, bool is_child = true)
      : pid_(pid),
        pidfd_(std::move(pidfd)),
        pty_master_(std::move(pty_master)),
        is_child_(is_child) {}

  pid_t pid() const { return pid_; }
  int pidfd() const { return pidfd_.get(); }
  // The PTY's master side when the agent runs on one, else -1: what the agent writes arrives
  // there, and an orchestrator reads it (to show it) or the agent blocks once the PTY is full.
  int pty_master() const { return pty_master_.get(); }

  // True once the agent has exited. Reaps it on the way, as the seed's runtime reaps its
  // children as soon as they exit — which frees the pid for reuse.
  bool reap_if_exited();

  // Waits until `until`, reaping the agent the moment it exits, as a runtime such as node reaps
  // its children on SIGCHLD. Returns whether it has exited. The seed reapers use this for their
  // timers: the pid is freed at once, whatever the reaper's own loop is doing.
  bool wait_reaping(std::chrono::steady_clock::time_point until);

  // Waits until the agent exits (reaping it) or `until`, whichever comes first: an
  // orchestrator waiting on the process itself, as after its SIGKILL, not on a timer.
  // Returns whether it has exited.
  bool wait_exit(std::chrono::steady_clock::time_point until);

 private:
  pid_t pid_;
  UniqueFd pidfd_;
  UniqueFd pty_master_;  // held open: closing it would hang the agent up
  bool is_child_;
  bool reaped_ = false;
};

// The program `spec` names, looked up as its own shell would: in the PATH of its environment
// (execvpe() searches the caller's, and the caller may run with another: the harness's reaper
// host with the standard one, a project's own command with the user's), a relative entry taken
// from its working folder. argv[0] as it is when it holds a '/' or is found nowhere there.
std::string program_of(const AgentSpec& spec);

// `v` as exec() takes an argv or envp: pointers into its strings, then a null one.
std::vector<char*> c_strings(const std::vector<std::string>& v);

// Forks and execs the agent. Throws std::runtime_error naming the program when exec fails.
Agent spawn_agent(const AgentSpec& spec, const SpawnOptions& options);

// The reaper did not finish within its own deadline (an external command that hangs).
class Timeout : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The reaper cannot work on this machine (no writable cgroup v2, say); the case is skipped.
class Unsupported : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace reaper
