#include "harness/engine/census/thread_wait.h"

#include <linux/futex.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "harness/engine/census/awaited_fds.h"
#include "reaper/os/proc_table.h"
#include "reaper/os/read_file.h"

namespace reapcheck {

// The thread id of /proc/<pid>/task/<tid>.
pid_t tid_of(const std::string& task) {
  return static_cast<pid_t>(
      std::strtol(std::filesystem::path(task).filename().c_str(), nullptr, 10));
}

bool read_thread_memory(pid_t tid, unsigned long long address, void* into, size_t size) {
  iovec local{into, size};
  iovec remote{reinterpret_cast<void*>(address), size};  // NOLINT: an address in another process
  return ::process_vm_readv(tid, &local, 1, &remote, 1, 0) == static_cast<ssize_t>(size);
}

// The time on `clock`, in ms.
double now_ms(clockid_t clock) {
  timespec t{};
  ::clock_gettime(clock, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

namespace {

// When a wait times out, at the earliest: ms of CLOCK_BOOTTIME, the clock a thread's start time
// counts in. A relative timeout counts from the call, which began after the thread did: the
// thread's start time (its stat's 22nd field, clock ticks, rounded down) plus the timeout. An
// absolute one (below) is moved onto CLOCK_BOOTTIME from its own clock. A node server's event
// loop waits so, its next timer 30 s away; s6-supervise in ppoll with 2^61 s.
std::optional<double> relative_end(const std::string& task, double timeout_ms) {
  const auto stat = reaper::parse_stat(reaper::read_file(task + "/stat"));
  if (!stat) return std::nullopt;
  static const double tick_ms = 1000.0 / static_cast<double>(::sysconf(_SC_CLK_TCK));
  return static_cast<double>(stat->start_time) * tick_ms + timeout_ms;
}

// How a timeout behind a pointer is given: a relative timespec or timeval, or an absolute
// timespec on a clock. Only CLOCK_MONOTONIC and CLOCK_BOOTTIME are read: CLOCK_REALTIME can be
// stepped forward, ending such a wait at any moment.
struct TimeoutForm {
  bool timeval = false;
  std::optional<clockid_t> absolute_on;
};

// The timeout struct at `address` in the thread's memory, read while the thread is blocked (the
// kernel copied it in at the call and writes it back, if at all, only on return — a restarted
// call resumes with what remains, which begins later: the estimate stays an earliest end).
std::optional<double> pointed_end(const std::string& task, unsigned long long address,
                                  TimeoutForm form) {
  long long value[2] = {};
  if (form.absolute_on && *form.absolute_on != CLOCK_MONOTONIC &&
      *form.absolute_on != CLOCK_BOOTTIME) {
    return std::nullopt;
  }
  if (!read_thread_memory(tid_of(task), address, value, sizeof value) || value[0] < 0 ||
      value[1] < 0) {
    return std::nullopt;
  }
  const double ms = static_cast<double>(value[0]) * 1e3 +
                    static_cast<double>(value[1]) / (form.timeval ? 1e3 : 1e6);
  if (!form.absolute_on) return relative_end(task, ms);
  return ms + now_ms(CLOCK_BOOTTIME) - now_ms(*form.absolute_on);
}

// A wait that times out at `end` at the earliest: one with no end if that is past `horizon`.
Wait wait_until(const std::optional<double>& end, const std::optional<double>& horizon) {
  return end && horizon && *end > *horizon ? Wait::forever : Wait::deadline;
}

// A call that blocks with no timeout of its own, or that waits for the ledger's answer.
std::optional<Wait> untimed_wait(long nr) {
  switch (nr) {
    case 34:   // pause
    case 130:  // rt_sigsuspend
    case 61:   // wait4
    case 247:  // waitid
    case 0:    // read
    case 19:   // readv
    case 43:   // accept
    case 288:  // accept4
    case 45:   // recvfrom
    case 47:   // recvmsg
    case 1:    // write (a full pipe)
      return Wait::forever;
    case 62:   // kill
    case 200:  // tkill
    case 234:  // tgkill
    case 129:  // rt_sigqueueinfo
    case 297:  // rt_tgsigqueueinfo
    case 424:  // pidfd_send_signal
      return Wait::signal_call;
    default:
      return std::nullopt;
  }
}

// A call with a timeout: in ms (negative means none), or behind a pointer (NULL means none).
Wait timed_wait(const std::string& task, long nr, const unsigned long long (&a)[6],
                const std::optional<double>& horizon) {
  const auto by_int = [&](unsigned long long v) {
    const int ms = static_cast<int>(v);
    return ms < 0 ? Wait::forever : wait_until(relative_end(task, ms), horizon);
  };
  const auto by_pointer = [&](unsigned long long v, TimeoutForm form = {}) {
    return v == 0 ? Wait::forever : wait_until(pointed_end(task, v, form), horizon);
  };
  switch (nr) {
    case 128:  // rt_sigtimedwait (sigwait, tini's and dumb-init's loop)
      return by_pointer(a[2]);
    case 232:  // epoll_wait
    case 281:  // epoll_pwait
      return by_int(a[3]);
    case 7:  // poll
      return by_int(a[2]);
    case 441:  // epoll_pwait2
    case 271:  // ppoll
      return by_pointer(nr == 441 ? a[3] : a[2]);
    case 23:  // select
      return by_pointer(a[4], {.timeval = true});
    case 270:  // pselect6
      return by_pointer(a[4]);
    case 202: {  // futex: FUTEX_WAIT's timeout is relative, FUTEX_WAIT_BITSET's absolute
      const unsigned long long op = a[1] & FUTEX_CMD_MASK;
      if (op == FUTEX_WAIT) return by_pointer(a[3]);
      const clockid_t clock = (a[1] & FUTEX_CLOCK_REALTIME) != 0 ? CLOCK_REALTIME : CLOCK_MONOTONIC;
      return op == FUTEX_WAIT_BITSET ? by_pointer(a[3], {.absolute_on = clock}) : Wait::unknown;
    }
    case 35:  // nanosleep
      return by_pointer(a[0]);
    case 230:  // clock_nanosleep: TIMER_ABSTIME makes it absolute on its clock
      return (a[1] & 1) != 0 ? by_pointer(a[2], {.absolute_on = static_cast<clockid_t>(a[0])})
                             : by_pointer(a[2]);
    default:
      return Wait::unknown;
  }
}

}  // namespace

Wait thread_wait(const std::string& task, const std::optional<double>& horizon) {
  const std::string text = reaper::read_file(task + "/syscall");
  if (text.empty() || text.rfind("running", 0) == 0) return Wait::running;
  std::istringstream in(text);
  long nr = 0;
  in >> nr;
  unsigned long long a[6] = {};
  for (auto& arg : a) {
    std::string hex;
    in >> hex;
    arg = std::strtoull(hex.c_str(), nullptr, 16);
  }
  if (nr == -1) return Wait::forever;  // blocked outside any system call: stopped
#if defined(__x86_64__)
  const Wait wait = untimed_wait(nr).value_or(Wait::unknown);
  const Wait blocked = wait == Wait::unknown ? timed_wait(task, nr, a, horizon) : wait;
  if (blocked != Wait::forever && blocked != Wait::deadline) return blocked;
  // A wait for descriptors one of which is ready already is over: the thread is about to run.
  const pid_t pid = static_cast<pid_t>(std::strtol(
      std::filesystem::path(task).parent_path().parent_path().filename().c_str(), nullptr, 10));
  return awaited_ready(pid, tid_of(task), nr, a) ? Wait::running : blocked;
#else
  return Wait::unknown;
#endif
}

}  // namespace reapcheck
