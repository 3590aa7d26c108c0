#include "harness/sandbox/init_reaping.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include <array>
#include <atomic>
#include <cerrno>

#include "reaper/os/sys_error.h"

namespace reapcheck::init {
namespace {

// Written from the signal handler: plain atomics, no locks, no allocation.
struct Slot {
  std::atomic<pid_t> pid{0};
  std::atomic<bool> done{false};
  std::atomic<int> code{0};
  std::atomic<int> status{0};
};
std::array<Slot, 256> g_slots;

void on_child(int) {
  const int saved = errno;
  for (;;) {
    siginfo_t info{};
    if (::waitid(P_ALL, 0, &info, WEXITED | WNOHANG) != 0 || info.si_pid == 0) break;
    for (Slot& s : g_slots) {
      if (s.pid.load() == info.si_pid && !s.done.load()) {
        s.code.store(info.si_code);
        s.status.store(info.si_status);
        s.done.store(true);
        break;
      }
    }
  }
  errno = saved;
}

sigset_t child_set() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGCHLD);
  return set;
}

}  // namespace

void start_reaping() {
  struct sigaction sa {};
  sa.sa_handler = on_child;
  sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
  sigemptyset(&sa.sa_mask);
  if (::sigaction(SIGCHLD, &sa, nullptr) != 0) reaper::throw_sys("sigaction(SIGCHLD)");
}

void watch(pid_t pid) {
  for (Slot& s : g_slots) {
    pid_t empty = 0;
    if (s.pid.compare_exchange_strong(empty, pid)) return;
  }
  throw std::runtime_error("init: too many watched children");
}

std::optional<Exit> exit_of(pid_t pid) {
  for (const Slot& s : g_slots) {
    if (s.pid.load() == pid && s.done.load()) return Exit{s.code.load(), s.status.load()};
  }
  return std::nullopt;
}

BlockChildSignals::BlockChildSignals() {
  sigset_t set = child_set();
  ::sigprocmask(SIG_BLOCK, &set, nullptr);
}

BlockChildSignals::~BlockChildSignals() {
  sigset_t set = child_set();
  ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
}

void reset_in_child() {
  // PID 1 alone is undumpable (pid_one.cpp): the reaper host and what it forks without an exec
  // are the case's, whose reapers may read their /proc files as they would anywhere.
  ::prctl(PR_SET_DUMPABLE, 1);
  reset_before_exec();
}

void reset_before_exec() {
  ::signal(SIGCHLD, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
}

}  // namespace reapcheck::init
