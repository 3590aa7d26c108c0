#include "harness/support/interrupt.h"

#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <string>

#include "reaper/os/sys_error.h"
#include "reaper/reaper.h"

namespace reapcheck {
namespace {

int g_fd = -1;

sigset_t watched() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return set;
}

}  // namespace

Interrupted::Interrupted(int sig)
    : std::runtime_error("interrupted by " + reaper::signal_name(sig)), sig_(sig) {}

void watch_interrupts() {
  if (g_fd >= 0) return;
  sigset_t set = watched();
  if (::sigprocmask(SIG_BLOCK, &set, nullptr) != 0) reaper::throw_sys("sigprocmask");
  g_fd = ::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
  if (g_fd < 0) reaper::throw_sys("signalfd");
}

void unblock_interrupts() {
  sigset_t set = watched();
  ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
}

int interrupt_fd() {
  return g_fd;
}

void throw_if_interrupted() {
  if (g_fd < 0) return;
  signalfd_siginfo info{};
  if (::read(g_fd, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
    throw Interrupted(static_cast<int>(info.ssi_signo));
  }
}

}  // namespace reapcheck
