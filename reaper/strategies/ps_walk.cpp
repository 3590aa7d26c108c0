// The seed orchestrator's fix for leaked npm dev servers, step for step (see
// docs/architecture.md, "Orchestrator A"). Its weaknesses are the point: the snapshot is taken
// once, the grace loop returns early when the agent exits, and the SIGKILL pass trusts kill(pid,
// 0).
#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>

#include "reaper/reaper.h"
#include "reaper/tree/tree_walk.h"

namespace reaper {
namespace {

// The seed checks its "agent exited" flag on a timer rather than waiting on the event; the
// interval is part of the technique under test, so it stays a poll.
constexpr std::chrono::milliseconds kPollInterval{100};

// `ps -ax -o pid,ppid`, parent → children, breadth first from `root` (root excluded). The seed
// swallows a failing `ps`: the list is then silently empty.
std::vector<pid_t> ps_descendants(pid_t root) {
  ChildMap children;
  if (FILE* ps = ::popen("ps -ax -o pid,ppid 2>/dev/null", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, ps) != nullptr) {
      std::istringstream in(line);
      pid_t pid = 0, ppid = 0;
      if (in >> pid >> ppid) children[ppid].push_back(pid);  // the header line fails to parse
    }
    ::pclose(ps);
  }
  return walk_descendants(children, root);
}

class PsWalk final : public Reaper {
 public:
  Agent spawn(const AgentSpec& spec) override { return spawn_agent(spec, {.pty = true}); }

  KillReport kill(Agent& agent, std::chrono::milliseconds grace) override {
    KillReport report;
    const pid_t a = agent.pid();
    const std::vector<pid_t> descendants = ps_descendants(a);
    report.note("ps snapshot: " + std::to_string(descendants.size()) + " descendants");

    ::killpg(a, SIGTERM);
    report.note("killpg(" + std::to_string(a) + ", SIGTERM)");
    for (pid_t d : descendants) {
      ::kill(d, SIGTERM);
      report.note("kill(" + std::to_string(d) + ", SIGTERM)");
    }

    const auto deadline = std::chrono::steady_clock::now() + grace;
    while (std::chrono::steady_clock::now() < deadline) {
      if (agent.wait_reaping(
              std::min(std::chrono::steady_clock::now() + kPollInterval, deadline))) {
        report.note("agent exited: returning early, no SIGKILL pass");
        return report;
      }
    }

    ::killpg(a, SIGKILL);
    report.note("killpg(" + std::to_string(a) + ", SIGKILL)");
    for (pid_t d : descendants) {
      if (::kill(d, 0) == 0) {
        ::kill(d, SIGKILL);
        report.note("kill(" + std::to_string(d) + ", SIGKILL)");
      }
    }
    return report;
  }
};

}  // namespace

ReaperInfo ps_walk_strategy() {
  return {"ps-walk",
          "ps -ax snapshot, killpg + per-pid SIGTERM, grace, SIGKILL gated on kill(pid,0)",
          [](const ReaperConfig&) -> std::unique_ptr<Reaper> { return std::make_unique<PsWalk>(); },
          "procps's ps on PATH (a failing ps leaves it an empty list, silently)"};
}

}  // namespace reaper
