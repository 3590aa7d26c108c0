// The classic process-group kill, as the seed orchestrator did before its fix: it reaches the
// agent's group and nothing that left it.
#include <signal.h>

#include <string>

#include "pidfd.h"
#include "strategies.h"

namespace reaper {
namespace {

class PGroup final : public Reaper {
 public:
  Agent spawn(const AgentSpec& spec) override { return spawn_agent(spec, SpawnStyle::session_pty); }

  KillReport kill(Agent& agent, std::chrono::milliseconds grace) override {
    KillReport report;
    const pid_t pgid = agent.pid();
    ::killpg(pgid, SIGTERM);
    report.note("killpg(" + std::to_string(pgid) + ", SIGTERM)");
    if (pidfd_wait_exit(agent.pidfd(), grace)) report.note("agent exited within the grace period");
    agent.reap_if_exited();
    ::killpg(pgid, SIGKILL);
    report.note("killpg(" + std::to_string(pgid) + ", SIGKILL)");
    return report;
  }
};

}  // namespace

std::unique_ptr<Reaper> make_pgroup() {
  return std::make_unique<PGroup>();
}

}  // namespace reaper
