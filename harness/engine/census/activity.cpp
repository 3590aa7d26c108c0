#include "harness/engine/census/activity.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>

#include "harness/engine/census/pid_namespace.h"
#include "harness/engine/census/stillness.h"
#include "harness/engine/census/thread_wait.h"
#include "reaper/os/cgroup_fs.h"
#include "reaper/os/pidfd.h"
#include "reaper/os/proc_table.h"
#include "reaper/os/read_file.h"
#include "reaper/os/unique_fd.h"

namespace reapcheck {
namespace {

// What settling reads of a process (/proc/<pid>/status).
struct Status {
  bool gone = true;
  char state = '?';
  unsigned long long pending = 0;  // SigPnd | ShdPnd
  unsigned long long blocked = 0;
  unsigned long long caught = 0;
};

// A signal mask line of a status file ("\nSigPnd:"); 0 when absent.
unsigned long long mask_of(const std::string& status, const char* field) {
  const size_t at = status.find(field);
  return at == std::string::npos
             ? 0
             : std::strtoull(status.c_str() + at + std::strlen(field), nullptr, 16);
}

constexpr unsigned long long bit(int sig) {
  return 1ULL << (sig - 1);
}
constexpr unsigned long long kSigkill = bit(SIGKILL);

// The parts of /proc/<pid>/status that tell what a process is doing, from one read of the file.
Status read_status(pid_t pid) {
  Status st;
  const std::string text = reaper::read_file("/proc/" + std::to_string(pid) + "/status");
  if (text.empty()) return st;
  st.gone = false;
  st.pending = mask_of(text, "\nSigPnd:") | mask_of(text, "\nShdPnd:");
  st.blocked = mask_of(text, "\nSigBlk:");
  st.caught = mask_of(text, "\nSigCgt:");
  if (const size_t at = text.find("\nState:"); at != std::string::npos) {
    const size_t letter = text.find_first_not_of(" \t", at + 7);
    if (letter != std::string::npos) st.state = text[letter];
  }
  return st;
}

// The signals the process's signalfds accept: each fd that is one (its link reads
// "anon_inode:[signalfd]") shows its mask in /proc/<pid>/fdinfo/<fd> ("sigmask:").
unsigned long long signalfd_mask(pid_t pid) {
  const std::string proc = "/proc/" + std::to_string(pid);
  unsigned long long mask = 0;
  std::error_code ec;
  for (const auto& fd : std::filesystem::directory_iterator(proc + "/fd", ec)) {
    std::error_code link_ec;
    if (std::filesystem::read_symlink(fd.path(), link_ec) != "anon_inode:[signalfd]") continue;
    const std::string info = reaper::read_file(proc + "/fdinfo/" + fd.path().filename().string());
    mask |= mask_of(info, "\nsigmask:");
  }
  return mask;
}

constexpr unsigned long kPfExiting = 0x4;  // PF_EXITING in a task's flags

// The signals whose default action ends the process: all but those it ignores (CHLD, CONT, URG,
// WINCH) and those that stop it (STOP, TSTP, TTIN, TTOU).
constexpr unsigned long long kFatalByDefault =
    ~(bit(SIGCHLD) | bit(SIGCONT) | bit(SIGURG) | bit(SIGWINCH) | bit(SIGSTOP) | bit(SIGTSTP) |
      bit(SIGTTIN) | bit(SIGTTOU));

// The last number of a status line ("\nNSpid:"): the pid in the process's own namespace.
long innermost(const std::string& status, const char* field) {
  const size_t at = status.find(field);
  if (at == std::string::npos) return 0;
  const size_t end = status.find('\n', at + 1);
  const size_t last = status.find_last_of(" \t", end);
  return std::strtol(status.c_str() + last + 1, nullptr, 10);
}

// A signal is pending that the thread will die of as soon as it next runs: unblocked, neither
// caught nor ignored, its default action fatal. The kernel turns such a signal into SIGKILL on
// every thread as it is sent, but only where it wakes a thread to take it; a thread that is
// runnable with a signal already pending is left to dequeue it when it runs, and until then shows
// only the signal. Not for a thread that is stopped, frozen or traced (it runs nothing until
// continued, thawed or let go, which may never be), nor for a namespace's init (the kernel drops
// a signal it has no handler for).
bool fatal_signal_pending(pid_t pid, char state, const std::string& status,
                          unsigned long long pending) {
  const unsigned long long deliverable =
      pending &
      ~(mask_of(status, "\nSigBlk:") | mask_of(status, "\nSigCgt:") | mask_of(status, "\nSigIgn:"));
  if ((deliverable & kFatalByDefault) == 0 || state == 'T' || state == 't') return false;
  if (innermost(status, "\nTracerPid:") != 0 || innermost(status, "\nNSpid:") == 1) return false;
  return !reaper::cgroup_frozen(pid);
}

// One live thread of the process: a pending SIGKILL, PF_EXITING in the flags of its stat, or a
// pending signal it will die of when it next runs. A thread that has exited (Z, X) — the leader
// of a process whose other threads run on — says nothing of the process. `stat` is the thread's
// stat file, read already.
bool thread_dying(pid_t pid, const std::string& task, const std::string& stat) {
  const auto self = reaper::parse_stat(stat);
  if (!self || self->state == 'Z' || self->state == 'X') return false;
  if ((self->flags & kPfExiting) != 0) return true;
  const std::string status = reaper::read_file(task + "/status");
  const unsigned long long pending = mask_of(status, "\nSigPnd:") | mask_of(status, "\nShdPnd:");
  return (pending & kSigkill) != 0 || fatal_signal_pending(pid, self->state, status, pending);
}

// A thread that has exited (Z, X): the leader of a process whose other threads run on.
bool thread_exited(const std::string& task) {
  const auto stat = reaper::parse_stat(reaper::read_file(task + "/stat"));
  return !stat || stat->state == 'Z' || stat->state == 'X';
}

// The least idle of its live threads' waits. A thread in a signal-sending call waits for the
// ledger, which answers the tree's calls at once and holds some of the reaper's: it goes on as
// soon as it is answered (Go's runtime, for one, preempts with tgkill from its monitor thread, the
// one thread that otherwise waits with a deadline), so only a call the ledger holds (`held`, by
// thread id) is a wait with no end of its own.
Wait process_wait(pid_t pid, const std::function<bool(pid_t)>& held,
                  const std::optional<double>& horizon) {
  Wait worst = Wait::forever;
  std::error_code ec;
  for (const auto& task :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    if (thread_exited(task.path().string())) continue;
    Wait wait = thread_wait(task.path().string(), horizon);
    if (wait == Wait::signal_call) {
      const pid_t tid = tid_of(task.path().string());
      wait = held && held(tid) ? Wait::forever : Wait::unknown;
    }
    worst = std::max(worst, wait);
    if (worst == Wait::running) break;
  }
  return worst;
}

// One of the process's threads is exiting or has SIGKILL pending.
bool own_threads_dying(pid_t pid) {
  const std::string proc = "/proc/" + std::to_string(pid);
  // Of one thread, as most are, the process's own stat and status are its thread's: the signal
  // ledger asks this of the reaper's command at each of its calls, with no directory to list.
  const std::string stat = reaper::read_file(proc + "/stat");
  if (const auto self = reaper::parse_stat(stat); self && self->threads == 1) {
    return thread_dying(pid, proc, stat);
  }
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator(proc + "/task", ec)) {
    const std::string path = task.path().string();
    if (thread_dying(pid, path, reaper::read_file(path + "/stat"))) return true;
  }
  return false;
}

// The process lives in a PID namespace nested below the reader's whose init is dying: when an
// init exits, the kernel SIGKILLs every process of its namespace (and of those nested in it).
// Until the init gets there, they look idle.
bool enclosing_init_dying(pid_t pid) {
  for (const NamespaceLevel& level : enclosing_namespaces(pid)) {
    if (level.init > 0 && level.init != pid && own_threads_dying(level.init)) return true;
  }
  return false;
}

// `t` in ms of CLOCK_BOOTTIME, the clock a thread's start time counts in.
std::optional<double> boottime_ms(const std::optional<std::chrono::steady_clock::time_point>& t) {
  if (!t) return std::nullopt;
  return now_ms(CLOCK_BOOTTIME) +
         std::chrono::duration<double, std::milli>(*t - std::chrono::steady_clock::now()).count();
}

}  // namespace

bool dying(pid_t pid) {
  return own_threads_dying(pid) || enclosing_init_dying(pid);
}

std::optional<Bearing> bearing_of(pid_t pid, int sig) {
  const std::string status = reaper::read_file("/proc/" + std::to_string(pid) + "/status");
  if (status.empty()) return std::nullopt;
  Bearing b;
  // NSsid and NSpid list the ids from our namespace inwards: ours first, its own last.
  b.sid =
      static_cast<pid_t>(std::strtol(reaper::status_field(status, "NSsid").c_str(), nullptr, 10));
  b.init = reaper::status_field(status, "NSpid").find_first_of(" \t") != std::string::npos &&
           innermost(status, "\nNSpid:") == 1;
  if (sig == SIGKILL && !b.init) {
    b.course = Course::dying;
  } else if (sig == SIGSTOP && !b.init && innermost(status, "\nTracerPid:") == 0) {
    b.course = Course::stopping;
  }
  return b;
}

bool lives_on(pid_t pid, int pidfd) {
  return !reaper::pidfd_exited(pidfd) && !dying(pid) && !reaper::pidfd_exited(pidfd);
}

bool exiting(pid_t pid, int pidfd) {
  return reaper::pidfd_exited(pidfd) || own_threads_dying(pid) || reaper::pidfd_exited(pidfd);
}

bool lives_on(pid_t pid) {
  const auto fd = reaper::pidfd_open(pid);
  return fd && lives_on(pid, fd->get());
}

Activity activity(pid_t pid, int pidfd, const Census& census,
                  const std::function<bool(pid_t)>& held,
                  std::optional<std::chrono::steady_clock::time_point> horizon) {
  if (reaper::pidfd_exited(pidfd)) {
    // Dead. Its pid is free once reaped; a parent that reaps (PID 1, the reaper host, anything
    // that catches SIGCHLD) is about to.
    if (reaper::pidfd_target(::getpid(), pidfd).value_or(-1) == -1) return Activity::settled;
    const auto self = reaper::ProcTable::read_one(pid, reaper::Detail::stat);
    if (!self) return Activity::settled;
    const Status parent = read_status(self->ppid);
    const bool reaps =
        self->ppid == 1 || census.who(self->ppid).value_or(Party{}).kind == Party::Kind::harness ||
        ((parent.caught & (1ULL << (SIGCHLD - 1))) != 0 && !(held && held(self->ppid)));
    // A parent that is stopped or frozen reaps nothing until it is continued or thawed (a reaper
    // that stops the tree, then kills it leaves first); one that is dying hands its zombies to a
    // reaper that will.
    const bool halted =
        parent.state == 'T' || parent.state == 't' || reaper::cgroup_frozen(self->ppid);
    const bool about_to = reaps && !parent.gone && (!halted || dying(self->ppid));
    return about_to ? Activity::busy : Activity::settled;
  }
  // Its threads are read one after another: the reads tell of one instant only if none of them
  // ran meanwhile (stillness.h), or a thread read as waiting may have been woken since by one
  // read after it.
  const ThreadRuns before = thread_runs({pid});
  if (dying(pid)) return Activity::dying;
  const Status s = read_status(pid);
  // A stopped process (job control or SIGSTOP), or one in a frozen cgroup, runs nothing — its
  // handlers for what is pending included — until it is continued or thawed: it has settled.
  if (s.state == 'T' || s.state == 't' || reaper::cgroup_frozen(pid)) return Activity::settled;
  // A signal still pending and not blocked has a handler yet to run (which may exit); a
  // running process may be in one now. A blocked one that a signalfd of the process accepts is
  // about to be read from it (util-linux's script takes SIGTERM and SIGCHLD so, and forwards or
  // exits): the process has something still to do.
  const unsigned long long held_back = s.pending & s.blocked;
  if ((s.pending & ~s.blocked) != 0 || (held_back != 0 && (held_back & signalfd_mask(pid)) != 0) ||
      s.state == 'R' || s.state == 'D') {
    return Activity::busy;
  }
  const Wait wait = process_wait(pid, held, boottime_ms(horizon));
  if (wait != Wait::forever && wait != Wait::deadline) return Activity::busy;
  if (!none_ran(before, thread_runs({pid}))) return Activity::busy;
  return wait == Wait::forever ? Activity::settled : Activity::timed;
}

}  // namespace reapcheck
