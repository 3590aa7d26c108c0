// The agent as PID 1 of a PID namespace of its own: when it dies the kernel kills everything
// in the namespace, wherever it was re-parented and whatever session it made. The grace period
// sends SIGTERM through pidfds to every process in the namespace; the agent itself, as the
// namespace's init, receives it only if it handles SIGTERM.
#include <signal.h>
#include <unistd.h>

#include <string>

#include "pidfd.h"
#include "proc_table.h"
#include "strategies.h"

namespace reaper {
namespace {

constexpr std::chrono::milliseconds kDeathDeadline{5000};

std::string pid_namespace_of(pid_t pid) {
  char buf[64];
  std::string link = "/proc/" + std::to_string(pid) + "/ns/pid";
  ssize_t n = ::readlink(link.c_str(), buf, sizeof buf);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

class PidNs final : public Reaper {
 public:
  Agent spawn(const AgentSpec& spec) override {
    return spawn_agent(spec, {.new_pid_namespace = true});
  }

  KillReport kill(Agent& agent, std::chrono::milliseconds grace) override {
    KillReport report;
    if (grace.count() > 0) {
      const std::string ns = pid_namespace_of(agent.pid());
      int sent = 0;
      const ProcTable table = ProcTable::read("/proc", Detail::stat);
      for (const ProcInfo& p : table.all()) {
        if (ns.empty() || pid_namespace_of(p.pid) != ns) continue;
        auto fd = pidfd_open(p.pid);
        // Re-check with the pidfd held: the pid may have been recycled since the scan.
        if (!fd || pid_namespace_of(p.pid) != ns || pidfd_exited(fd->get())) continue;
        sent += pidfd_signal(fd->get(), SIGTERM) ? 1 : 0;
      }
      report.note("SIGTERM via pidfd to " + std::to_string(sent) + " processes in " + ns);
      if (pidfd_wait_exit(agent.pidfd(), grace)) report.note("the namespace's init exited");
    }
    // SIGKILL to a namespace's init from outside it always lands; the kernel then kills every
    // other process in the namespace before the init's exit completes.
    pidfd_signal(agent.pidfd(), SIGKILL);
    report.note("SIGKILL via pidfd to the namespace's init " + std::to_string(agent.pid()));
    if (!pidfd_wait_exit(agent.pidfd(), kDeathDeadline)) report.note("the init did not exit");
    agent.reap_if_exited();
    return report;
  }
};

}  // namespace

std::unique_ptr<Reaper> make_pidns() {
  return std::make_unique<PidNs>();
}

}  // namespace reaper
