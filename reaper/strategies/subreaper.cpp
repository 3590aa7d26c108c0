// proc-pidfd with a subreaper: each agent runs under a small shim forked by the reaper host
// that sets PR_SET_CHILD_SUBREAPER, so whatever the tree orphans — a double fork's daemon, a
// child whose parent exited during the grace period — is re-parented to the shim instead of
// to init, and stays reachable from it. A shim per agent (rather than the host itself being the
// subreaper) keeps two agents' orphans apart.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <map>

#include "reaper/os/pidfd.h"
#include "reaper/os/sys_error.h"
#include "reaper/reaper.h"
#include "reaper/tree/frozen_tree.h"

namespace reaper {
namespace {

void on_child(int) {}

// The shim: spawn the agent, tell the host its pid, then reap whatever is re-parented here.
[[noreturn]] void shim_main(const AgentSpec& spec, int report_fd) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  struct sigaction sa {};
  sa.sa_handler = on_child;
  ::sigaction(SIGCHLD, &sa, nullptr);
  sigset_t chld, old;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  ::sigprocmask(SIG_BLOCK, &chld, &old);
  pid_t agent = -1;
  try {
    agent = spawn_agent(spec, {}).pid();  // the Agent's pidfd closes; the shim reaps instead
  } catch (const std::exception&) {
  }
  (void)!::write(report_fd, &agent, sizeof agent);
  ::close(report_fd);
  if (agent < 0) ::_exit(1);
  for (;;) {
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    ::sigsuspend(&old);  // SIGCHLD unblocked only here: no wake-up is lost
  }
}

class Subreaper final : public Reaper {
 public:
  ~Subreaper() override {
    for (auto& [agent, shim] : shims_) {
      pidfd_signal(shim.pidfd.get(), SIGKILL);
      ::waitpid(shim.pid, nullptr, 0);
    }
  }

  Agent spawn(const AgentSpec& spec) override {
    Pipe report = make_pipe();
    pid_t shim = ::fork();
    if (shim < 0) throw_sys("fork subreaper shim");
    if (shim == 0) {
      report.read.reset();
      shim_main(spec, report.write.get());
    }
    report.write.reset();
    auto shim_fd = pidfd_open(shim);
    pid_t agent = -1;
    if (::read(report.read.get(), &agent, sizeof agent) != sizeof agent || agent < 0 || !shim_fd) {
      ::waitpid(shim, nullptr, 0);
      throw std::runtime_error("the subreaper shim could not start the agent '" + spec.argv[0] +
                               "'");
    }
    auto agent_fd = pidfd_open(agent);
    if (!agent_fd) throw std::runtime_error("the agent exited at once");
    shims_.emplace(agent, Shim{shim, std::move(*shim_fd)});
    return Agent(agent, std::move(*agent_fd), UniqueFd(), /*is_child=*/false);
  }

  KillReport kill(Agent& agent, std::chrono::milliseconds grace) override {
    KillReport report;
    auto it = shims_.find(agent.pid());
    if (it == shims_.end()) throw std::logic_error("subreaper: not an agent of ours");
    FrozenTree tree(it->second.pid, it->second.pidfd.get(), /*root_is_member=*/false);
    freeze_and_kill(tree, grace, report);
    pidfd_signal(it->second.pidfd.get(), SIGKILL);
    ::waitpid(it->second.pid, nullptr, 0);
    report.note("shim " + std::to_string(it->second.pid) + " ended");
    shims_.erase(it);
    return report;
  }

 private:
  struct Shim {
    pid_t pid;
    UniqueFd pidfd;
  };
  std::map<pid_t, Shim> shims_;  // by agent pid
};

}  // namespace

ReaperInfo subreaper_strategy() {
  return {
      "subreaper",
      "proc-pidfd under a per-agent PR_SET_CHILD_SUBREAPER shim: orphans stay reachable",
      [](const ReaperConfig&) -> std::unique_ptr<Reaper> { return std::make_unique<Subreaper>(); },
      "Linux 5.3 for pidfds (PR_SET_CHILD_SUBREAPER needs no privilege)"};
}

}  // namespace reaper
