// The agent as PID 1 of a PID namespace of its own: when it dies the kernel kills everything
// in the namespace, wherever it was re-parented and whatever session it made. The grace period
// sends SIGTERM through pidfds to every process in the namespace and waits for them to go. The
// init dies with the process that spawned it (PR_SET_PDEATHSIG), so an orchestrator that is
// itself SIGKILLed takes the namespace with it.
#include <signal.h>
#include <unistd.h>

#include <map>
#include <string>

#include "reaper/os/deadline.h"
#include "reaper/os/pidfd.h"
#include "reaper/os/proc_table.h"
#include "reaper/reaper.h"

namespace reaper {
namespace {

constexpr std::chrono::milliseconds kDeathDeadline{5000};

std::string pid_namespace_of(pid_t pid) {
  char buf[64];
  std::string link = "/proc/" + std::to_string(pid) + "/ns/pid";
  ssize_t n = ::readlink(link.c_str(), buf, sizeof buf);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

// A namespace's init receives a signal from outside only when it has a handler for it (see
// pid_namespaces(7)); any other signal is dropped, not queued.
bool catches(pid_t pid, int sig) {
  const std::string mask = status_field(pid, "SigCgt");
  return !mask.empty() && ((std::stoull(mask, nullptr, 16) >> (sig - 1)) & 1) != 0;
}

// SIGTERMs (and SIGCONTs) every process in `ns` but `init` that `termed` does not already hold
// alive, keeping a pidfd for each; returns how many were signalled.
int term_newcomers(const std::string& ns, pid_t init, std::map<pid_t, UniqueFd>& termed) {
  int sent = 0;
  const ProcTable table = ProcTable::read("/proc", Detail::stat);
  for (const ProcInfo& p : table.all()) {
    if (p.pid == init || pid_namespace_of(p.pid) != ns) continue;
    if (auto it = termed.find(p.pid); it != termed.end() && !pidfd_exited(it->second.get())) {
      continue;
    }
    auto fd = pidfd_open(p.pid);
    // Re-check with the pidfd held: the pid may have been recycled since the scan.
    if (!fd || pid_namespace_of(p.pid) != ns || pidfd_exited(fd->get())) continue;
    if (!pidfd_signal(fd->get(), SIGTERM)) continue;
    pidfd_signal(fd->get(), SIGCONT);  // a stopped process acts on its SIGTERM only once resumed
    termed.insert_or_assign(p.pid, std::move(*fd));
    ++sent;
  }
  return sent;
}

// The grace period: SIGTERM to the whole namespace, then wait until it has emptied. Waiting for
// an init that cannot receive SIGTERM would only spend the whole grace period, so then the wait
// is for the others, rescanning for processes they forked meanwhile.
void term_namespace(const Agent& agent, std::chrono::milliseconds grace, KillReport& report) {
  const auto deadline = std::chrono::steady_clock::now() + grace;
  const std::string ns = pid_namespace_of(agent.pid());
  if (ns.empty()) return;  // the agent is already gone, and with it the namespace
  const bool init_listens = catches(agent.pid(), SIGTERM);
  if (init_listens) pidfd_signal(agent.pidfd(), SIGTERM);
  std::map<pid_t, UniqueFd> termed;
  int sent = 0;
  for (int scan = 1;; ++scan) {
    const int fresh = term_newcomers(ns, agent.pid(), termed);
    sent += fresh;
    if (scan > 1 && fresh == 0) {
      report.note("SIGTERM via pidfd to " + std::to_string(sent) + " processes in " + ns +
                  "; all gone after " + std::to_string(scan) + " scans");
      return;
    }
    if (init_listens) {
      const bool gone = pidfd_wait_exit(agent.pidfd(), time_left(deadline));
      report.note("SIGTERM via pidfd to the init, which handles it, and " + std::to_string(sent) +
                  " processes in " + ns + "; the init " + (gone ? "exited" : "did not exit"));
      return;
    }
    std::vector<int> fds;
    fds.reserve(termed.size());
    for (const auto& [pid, fd] : termed) fds.push_back(fd.get());
    if (int left = pidfds_wait_exit(fds, deadline); left > 0) {
      report.note("SIGTERM via pidfd to " + std::to_string(sent) + " processes in " + ns + "; " +
                  std::to_string(left) + " left after the grace period");
      return;
    }
  }
}

class PidNs final : public Reaper {
 public:
  Agent spawn(const AgentSpec& spec) override {
    return spawn_agent(spec, {.new_pid_namespace = true, .die_with_parent = true});
  }

  KillReport kill(Agent& agent, std::chrono::milliseconds grace) override {
    KillReport report;
    if (grace.count() > 0) term_namespace(agent, grace, report);
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

ReaperInfo pidns_strategy() {
  return {"pidns",
          "the agent as PID 1 of its own PID namespace, dying with its spawner: SIGTERM, grace, "
          "SIGKILL to the init",
          [](const ReaperConfig&) -> std::unique_ptr<Reaper> { return std::make_unique<PidNs>(); },
          "CAP_SYS_ADMIN for a PID namespace (root, or inside a user namespace) and Linux 5.3 for "
          "pidfds"};
}

}  // namespace reaper
