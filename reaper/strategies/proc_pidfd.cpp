// A correct reaper without kernel containment: walk /proc from the agent, hold a pidfd for
// every member from the moment it is found (so a recycled pid can never be hit), freeze the
// tree with SIGSTOP until a rescan finds nothing new, then signal through the pidfds.
//
// Its blind spot is deliberate and documented: a process whose parent exits before the walk
// finds it (a double fork's daemon, a child forked by a member that then exits) is re-parented
// out of the tree. The subreaper strategy closes that gap.
#include "reaper/reaper.h"
#include "reaper/tree/frozen_tree.h"

namespace reaper {
namespace {

class ProcPidfd final : public Reaper {
 public:
  Agent spawn(const AgentSpec& spec) override { return spawn_agent(spec, {}); }

  KillReport kill(Agent& agent, std::chrono::milliseconds grace) override {
    KillReport report;
    FrozenTree tree(agent.pid(), agent.pidfd(), true);
    freeze_and_kill(tree, grace, report);
    agent.reap_if_exited();
    return report;
  }
};

}  // namespace

ReaperInfo proc_pidfd_strategy() {
  return {
      "proc-pidfd", "/proc walk, pidfd per member, SIGSTOP to a fixpoint, SIGKILL via pidfd",
      [](const ReaperConfig&) -> std::unique_ptr<Reaper> { return std::make_unique<ProcPidfd>(); },
      "a readable /proc and Linux 5.3 for pidfds"};
}

}  // namespace reaper
