// What a case's stages ask of the orchestrator — the reaper host (reaper_host.h), which holds the
// reaper under test and spawns the agent: at set-up, the signal ledger's listener and the spawn's
// reply; once the tree is up, who it is (the tree ends above it), the kill and its reply, and a
// force-quit of the whole app. ReaperHost is the real one; a unit test gives its own.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <variant>
#include <vector>

#include "reaper/os/unique_fd.h"

namespace reapcheck {

class Orchestrator {
 public:
  using Clock = std::chrono::steady_clock;

  struct Reply {
    // unsupported: the reaper cannot work on this machine (the case is skipped)
    enum class Status { ok, error, timeout, unsupported } status = Status::error;
    pid_t agent = 0;  // for the spawn reply
    pid_t sibling = 0;
    std::vector<std::string> steps;  // for the kill reply
    double cpu_ms = 0;               // the host's own CPU time during the kill
    double children_cpu_ms = 0;      // its waited-for children's during the kill
    std::string error;
    bool waited_out = false;  // timeout: no reply came before the deadline (the host said none)
    int exit_code = -1;       // for the agent's exit (reaper_host.h's wait_agent): its status
    int exit_signal = 0;      // or the signal that ended it
  };

  virtual ~Orchestrator() = default;

  virtual pid_t pid() const = 0;
  // The signal ledger's listener, which the host hands over before it spawns anything; or why
  // there is none. Waits for it until `deadline`.
  virtual std::variant<reaper::UniqueFd, std::string> take_listener(Clock::time_point deadline) = 0;
  // The spawn's reply: the agent's pid (and the sibling's), or why there is none.
  virtual Reply wait_spawned(Clock::time_point deadline) = 0;
  virtual int pidfd() const = 0;  // readable once it has exited
  // The reaper is told to kill the agent's tree; reply_fd() turns readable once its reply (or
  // EOF) is due, and wait_killed() reads it.
  virtual void request_kill() = 0;
  virtual int reply_fd() const = 0;
  virtual Reply wait_killed(Clock::time_point deadline) = 0;
  // An app force-quit: SIGKILL to the orchestrator itself, which the reaper cannot answer.
  virtual void force_quit() = 0;
};

}  // namespace reapcheck
