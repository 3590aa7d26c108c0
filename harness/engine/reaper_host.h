// The reaper host: a child of the case runner that owns the reaper under test. It spawns the
// agent (so the agent is its child, as in the seed orchestrator) and kills it when told.
// It speaks JSON lines on a pipe; the runner never trusts it to be well behaved.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "harness/catalog/catalog.h"
#include "harness/support/line_reader.h"
#include "reaper/reaper.h"

namespace reapcheck {

// What the host is to do.
struct HostPlan {
  const ReaperChoice* reaper = nullptr;
  reaper::AgentSpec agent;
  std::optional<reaper::AgentSpec> sibling;  // a second agent, which the kill must leave alone
  std::chrono::milliseconds grace{300};
  reaper::ReaperConfig config;
  // Install the signal filter (signal_filter.h) before anything else, and hand its listener over.
  bool ledger = true;
  std::string path;  // the PATH the host (the reaper) runs with; empty: the harness's own
};

class ReaperHost {
 public:
  using Clock = std::chrono::steady_clock;

  // Forks the host, which spawns the agent at once — and the sibling the same way. The fds in
  // inherit_fds are closed in the host after the spawns, so only the agents hold them.
  explicit ReaperHost(const HostPlan& plan);
  ~ReaperHost();  // kills the host if it is still running
  ReaperHost(const ReaperHost&) = delete;
  ReaperHost& operator=(const ReaperHost&) = delete;

  pid_t pid() const { return pid_; }
  int pidfd() const { return pidfd_.get(); }

  // The signal ledger's listener, which the host hands over before it spawns anything; or why
  // there is none. Waits for it until `deadline`.
  std::variant<reaper::UniqueFd, std::string> take_listener(Clock::time_point deadline);
  int reply_fd() const { return replies_.get(); }  // readable once a reply (or EOF) is due

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
  };

  Reply wait_spawned(Clock::time_point deadline);
  void request_kill();
  Reply wait_killed(Clock::time_point deadline);

 private:
  Reply read_reply(Clock::time_point deadline, const char* what);
  std::string exit_description();

  pid_t pid_ = -1;
  reaper::UniqueFd pidfd_;
  reaper::UniqueFd command_;   // runner → host
  reaper::UniqueFd replies_;   // host → runner
  reaper::UniqueFd handover_;  // host → runner: the ledger's listener
  LineReader reader_;
};

}  // namespace reapcheck
