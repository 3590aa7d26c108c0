// The classic process-group kill, as the seed orchestrator did before its fix: it reaches the
// agent's group and nothing that left it.
#include <signal.h>

#include <string>

#include "reaper/reaper.h"

namespace reaper {
namespace {

class PGroup final : public Reaper {
 public:
  Agent spawn(const AgentSpec& spec) override { return spawn_agent(spec, {.pty = true}); }

  KillReport kill(Agent& agent, std::chrono::milliseconds grace) override {
    KillReport report;
    const pid_t pgid = agent.pid();
    ::killpg(pgid, SIGTERM);
    report.note("killpg(" + std::to_string(pgid) + ", SIGTERM)");
    // The seed scheduled SIGKILL on a timer: the whole grace period passes, while its runtime
    // reaps the agent as soon as it exits — which frees the group id before the final killpg.
    if (agent.wait_reaping(std::chrono::steady_clock::now() + grace)) {
      report.note("agent exited and was reaped during the grace period");
    }
    ::killpg(pgid, SIGKILL);
    report.note("killpg(" + std::to_string(pgid) + ", SIGKILL)");
    return report;
  }
};

}  // namespace

ReaperInfo pgroup_strategy() {
  return {"pgroup", "killpg SIGTERM, grace, killpg SIGKILL (the seed before its fix)",
          [](const ReaperConfig&) -> std::unique_ptr<Reaper> { return std::make_unique<PGroup>(); },
          "nothing beyond POSIX: any process may signal its children's group"};
}

}  // namespace reaper
