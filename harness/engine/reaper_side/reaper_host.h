// The reaper host: a child of the case runner that owns the reaper under test. It spawns the
// agent (so the agent is its child, as in the seed orchestrator) and kills it when told.
// It speaks JSON lines on a pipe; the runner never trusts it to be well behaved. The stages after
// set-up see it as an Orchestrator (orchestrator.h).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "harness/catalog/catalog.h"
#include "harness/engine/reaper_side/orchestrator.h"
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
  // `reapcheck watch`: no kill is requested; the host waits for the agent, as a CI runner waits
  // for its command, and replies with how it ended (wait_agent_exit()).
  bool wait_agent = false;
  // Each exit_group() of what the host starts waits for the ledger to read the kernel's fork
  // events up to it (install_signal_filter): watch's lineage of short-lived processes.
  bool hold_exits = false;
};

class ReaperHost final : public Orchestrator {
 public:
  // Forks the host, which spawns the agent at once — and the sibling the same way. The fds in
  // inherit_fds are closed in the host after the spawns, so only the agents hold them.
  explicit ReaperHost(const HostPlan& plan);
  ~ReaperHost() override;  // kills the host if it is still running
  ReaperHost(const ReaperHost&) = delete;
  ReaperHost& operator=(const ReaperHost&) = delete;

  pid_t pid() const override { return pid_; }
  int pidfd() const override { return pidfd_.get(); }

  std::variant<reaper::UniqueFd, std::string> take_listener(Clock::time_point deadline) override;
  int reply_fd() const override { return replies_.get(); }

  Reply wait_spawned(Clock::time_point deadline) override;
  void request_kill() override;
  Reply wait_killed(Clock::time_point deadline) override;
  void force_quit() override;
  // With HostPlan::wait_agent: how the agent ended, once it has (Reply::exit_code, exit_signal).
  Reply wait_agent_exit(Clock::time_point deadline);

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
