#include "reaper/tree/frozen_tree.h"

#include <fcntl.h>
#include <linux/kcmp.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "reaper/os/backoff.h"
#include "reaper/os/cgroup_fs.h"
#include "reaper/os/pidfd.h"
#include "reaper/os/proc_table.h"
#include "reaper/os/read_file.h"
#include "reaper/os/sys_error.h"

namespace reaper {
namespace {

// Bounds on steps that should take microseconds; hitting one is reported, not hidden.
constexpr std::chrono::milliseconds kFreezeDeadline{5000};
constexpr std::chrono::milliseconds kDeathDeadline{5000};

bool stopped_or_dead(char state) {
  return state == 'T' || state == 't' || state == 'Z' || state == 'X';
}

// A process whose leader shows Z may still run other threads: it is held only when every thread
// is (/proc/<pid>/task/<tid>/stat).
bool every_thread_stopped(pid_t pid) {
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator(tasks, ec)) {
    const auto stat = parse_stat(read_file(task.path().string() + "/stat"));
    if (stat && !stopped_or_dead(stat->state)) return false;
  }
  return true;
}

// `pid` waits in vfork() for a child that still shares its memory (kcmp, KCMP_VM): it is in
// uninterruptible sleep, and cannot stop until that child execs or exits — which, once the child
// is stopped, it never does. It runs nothing of its own meanwhile, so it forks nothing.
bool waits_in_vfork(pid_t pid, const ProcTable& table) {
  for (const ProcInfo& child : table.all()) {
    if (child.ppid == pid && ::syscall(SYS_kcmp, pid, child.pid, KCMP_VM, 0, 0) == 0) return true;
  }
  return false;
}

// A member the freeze may stop looking at: stopped or dead (every thread of it, if its leader
// is a zombie), in a frozen cgroup (which can neither stop nor run), or held in vfork(), to be
// killed as it is, its pidfd saying when it is gone.
bool member_held(const ProcInfo& p, const ProcTable& table) {
  if (p.state == 'Z') return every_thread_stopped(p.pid);
  if (stopped_or_dead(p.state) || cgroup_frozen(p.pid)) return true;
  return p.state == 'D' && waits_in_vfork(p.pid, table);
}

}  // namespace

bool FrozenTree::Member::exited() const {
  return pidfd_exited(pidfd.get());
}

FrozenTree::FrozenTree(pid_t root, int root_pidfd, bool root_is_member)
    : root_(root), root_member_{dup_fd(root_pidfd)} {
  if (root_is_member) members_.emplace(root, Member{dup_fd(root_pidfd)});
}

void FrozenTree::freeze(KillReport& report) {
  for (auto& [pid, m] : members_) pidfd_signal(m.pidfd.get(), SIGSTOP);
  const auto deadline = std::chrono::steady_clock::now() + kFreezeDeadline;
  // A stop takes effect when its target next runs, and no event says when: while members are
  // still running, each rescan waits a little longer than the last. New members are looked for
  // again at once.
  Backoff backoff;
  for (int round = 1;; ++round) {
    ProcTable table = ProcTable::read("/proc", Detail::stat);
    bool grew = false;
    bool settled = true;
    for (const ProcInfo& p : table.all()) {
      if (auto it = members_.find(p.pid); it != members_.end()) {
        // Not stopped yet — unless the member is dead and this is a stranger on its pid. Dead
        // means its pidfd says so: a leader in state Z may have threads still running.
        if (it->second.exited()) continue;
        if (!member_held(p, table)) settled = false;
      } else if (p.pid != root_ && is_live_parent(p.ppid)) {
        grew |= adopt(p.pid);  // a zombie is passed over there, once its pidfd says it exited
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
    if (grew) {
      backoff = Backoff();
    } else {
      backoff.wait(deadline);
    }
  }
}

void FrozenTree::signal_all(int sig, KillReport& report) {
  int sent = 0;
  for (auto& [pid, m] : members_) sent += pidfd_signal(m.pidfd.get(), sig) ? 1 : 0;
  report.note(signal_name(sig) + " via pidfd to " + std::to_string(sent) + " members");
}

int FrozenTree::wait_all_exit(std::chrono::milliseconds timeout) {
  std::vector<int> fds;
  fds.reserve(members_.size());
  for (const auto& [pid, m] : members_) fds.push_back(m.pidfd.get());
  return pidfds_wait_exit(fds, std::chrono::steady_clock::now() + timeout);
}

// A parent counts only while the process we hold at that pid is alive.
bool FrozenTree::is_live_parent(pid_t ppid) const {
  if (ppid == root_) return !root_member_.exited();
  auto it = members_.find(ppid);
  return it != members_.end() && !it->second.exited();
}

// Takes a pidfd first, then re-reads the process: if the pid was recycled after the scan, the
// fresh read shows the stranger's parent, and the pidfd (still open, not exited) proves the read
// was of the process it names.
bool FrozenTree::adopt(pid_t pid) {
  auto fd = pidfd_open(pid);
  if (!fd) return false;
  auto now = ProcTable::read_one(pid, Detail::stat);
  if (!now || !is_live_parent(now->ppid) || pidfd_exited(fd->get())) return false;
  pidfd_signal(fd->get(), SIGSTOP);
  members_.emplace(pid, Member{std::move(*fd)});
  return true;
}

void freeze_and_kill(FrozenTree& tree, std::chrono::milliseconds grace, KillReport& report) {
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
}

}  // namespace reaper
