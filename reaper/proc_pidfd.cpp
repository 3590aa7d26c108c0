// A correct reaper without kernel containment: walk /proc from the agent, hold a pidfd for
// every member from the moment it is found (so a recycled pid can never be hit), freeze the
// tree with SIGSTOP until a rescan finds nothing new, then signal through the pidfds.
//
// Its remaining blind spot is deliberate and documented: a child forked during the grace
// period by a member that then exits is re-parented out of the tree and not found again.
#include <fcntl.h>
#include <signal.h>

#include <map>
#include <string>

#include "pidfd.h"
#include "proc_table.h"
#include "strategies.h"
#include "sys_error.h"

namespace reaper {
namespace {

// Bounds on steps that should take microseconds; hitting one is reported, not hidden.
constexpr std::chrono::milliseconds kFreezeDeadline{5000};
constexpr std::chrono::milliseconds kDeathDeadline{5000};

// The pidfd is the member's identity. /proc's start time is no substitute: it counts clock
// ticks, so a process recycled onto a member's pid within the same tick looks identical.
struct Member {
  UniqueFd pidfd;
  bool exited() const { return pidfd_exited(pidfd.get()); }
};

class Tree {
 public:
  explicit Tree(const Agent& agent) {
    UniqueFd fd(::fcntl(agent.pidfd(), F_DUPFD_CLOEXEC, 0));
    if (!fd) throw_sys("dup(agent pidfd)");
    members_.emplace(agent.pid(), Member{std::move(fd)});
  }

  // SIGSTOPs every member and every new child of a member until a rescan finds no new process
  // and every member has actually stopped (a signal takes effect only when its target runs).
  void freeze(KillReport& report) {
    for (auto& [pid, m] : members_) pidfd_signal(m.pidfd.get(), SIGSTOP);
    const auto deadline = std::chrono::steady_clock::now() + kFreezeDeadline;
    for (int round = 1;; ++round) {
      ProcTable table = ProcTable::read("/proc", Detail::stat);
      bool grew = false;
      bool settled = true;
      for (const ProcInfo& p : table.all()) {
        if (auto it = members_.find(p.pid); it != members_.end()) {
          // Not stopped yet — unless the member is dead and this is a stranger on its pid.
          if (!is_stopped_or_dead(p.state) && !it->second.exited()) settled = false;
        } else if (p.state != 'Z' && is_live_member(p.ppid)) {
          grew |= adopt(p.pid);
        }
      }
      if (!grew && settled) {
        report.note("froze " + std::to_string(members_.size()) + " members in " +
                    std::to_string(round) + " scans");
        return;
      }
      if (std::chrono::steady_clock::now() > deadline) {
        report.note("freeze gave up after " + std::to_string(round) + " scans");
        return;
      }
    }
  }

  void signal_all(int sig, KillReport& report) {
    int sent = 0;
    for (auto& [pid, m] : members_) sent += pidfd_signal(m.pidfd.get(), sig) ? 1 : 0;
    report.note(signal_name(sig) + " via pidfd to " + std::to_string(sent) + " members");
  }

  // Waits until every member has exited or `timeout` passes; returns how many are left.
  int wait_all_exit(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    int left = 0;
    for (auto& [pid, m] : members_) {
      auto remaining = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (!pidfd_wait_exit(m.pidfd.get(), std::max(remaining, std::chrono::milliseconds(0)))) {
        ++left;
      }
    }
    return left;
  }

 private:
  static bool is_stopped_or_dead(char state) {
    return state == 'T' || state == 't' || state == 'Z' || state == 'X';
  }

  // A parent counts only while the member we hold at that pid is alive.
  bool is_live_member(pid_t ppid) const {
    auto it = members_.find(ppid);
    return it != members_.end() && !it->second.exited();
  }

  // Takes a pidfd first, then re-reads the process: if the pid was recycled after the scan, the
  // fresh read shows the stranger's parent, and the pidfd (still open, not exited) proves the
  // read was of the process it names.
  bool adopt(pid_t pid) {
    auto fd = pidfd_open(pid);
    if (!fd) return false;
    auto now = ProcTable::read_one(pid, Detail::stat);
    if (!now || !is_live_member(now->ppid) || pidfd_exited(fd->get())) return false;
    pidfd_signal(fd->get(), SIGSTOP);
    members_.emplace(pid, Member{std::move(*fd)});
    return true;
  }

  std::map<pid_t, Member> members_;
};

class ProcPidfd final : public Reaper {
 public:
  Agent spawn(const AgentSpec& spec) override { return spawn_agent(spec, SpawnStyle::session); }

  KillReport kill(Agent& agent, std::chrono::milliseconds grace) override {
    KillReport report;
    Tree tree(agent);
    tree.freeze(report);
    if (grace.count() > 0) {
      // Let members clean up: SIGTERM is queued while they are stopped, SIGCONT delivers it.
      tree.signal_all(SIGTERM, report);
      tree.signal_all(SIGCONT, report);
      int left = tree.wait_all_exit(grace);
      report.note(std::to_string(left) + " members left after the grace period");
      tree.freeze(report);
    }
    tree.signal_all(SIGKILL, report);
    if (int left = tree.wait_all_exit(kDeathDeadline); left > 0) {
      report.note(std::to_string(left) + " members still running after SIGKILL");
    }
    agent.reap_if_exited();
    return report;
  }
};

}  // namespace

std::unique_ptr<Reaper> make_proc_pidfd() {
  return std::make_unique<ProcPidfd>();
}

}  // namespace reaper
