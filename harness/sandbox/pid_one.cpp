#include "harness/sandbox/pid_one.h"

#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "harness/sandbox/case_cgroup.h"
#include "harness/sandbox/sandbox_ids.h"
#include "harness/support/interrupt.h"
#include "harness/support/process_title.h"
#include "harness/support/write_all.h"
#include "reaper/os/sys_error.h"
#include "reaper/os/unique_fd.h"

namespace reapcheck {
namespace {

void bring_loopback_up() {
  reaper::UniqueFd s(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!s) reaper::throw_sys("socket");
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
  if (::ioctl(s.get(), SIOCGIFFLAGS, &ifr) < 0) reaper::throw_sys("SIOCGIFFLAGS lo");
  ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
  if (::ioctl(s.get(), SIOCSIFFLAGS, &ifr) < 0) reaper::throw_sys("SIOCSIFFLAGS lo");
}

// pid_max is per PID namespace from Linux 6.14 on; before that the same file is the host's
// global limit, which the sandbox must never write.
bool pid_max_is_per_namespace() {
  utsname u{};
  if (::uname(&u) != 0) return false;
  int major = 0, minor = 0;
  if (std::sscanf(u.release, "%d.%d", &major, &minor) != 2) return false;
  return major > 6 || (major == 6 && minor >= 14);
}

// Caps the number of processes a case can create, so a runaway tree (a fork storm under a bad
// reaper) cannot exhaust the machine even where the case's cgroup has no pids.max. Only ever
// written as PID 1 of our own namespace.
void bound_pids() {
  if (::getpid() != 1 || !pid_max_is_per_namespace()) return;
  std::ofstream limit("/proc/sys/kernel/pid_max");
  limit << kCasePidsMax;  // best effort: a rootless sandbox may not be allowed to
}

// Dies with the harness, or exits now if it has died already: its end of `go_fd` is then closed.
void die_with_harness(int go_fd) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  pollfd p{go_fd, 0, 0};
  if (::poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR))) ::_exit(1);
}

void enter(int go_fd) {
  become_namespace_root();
  die_with_harness(go_fd);  // a change of uid clears the parent-death signal
  // Out of the case's reach, though the reapers in it are root of the same user namespace. Never
  // having exec'd, this process's memory belongs to the harness's user namespace, where they
  // have no capability: undumpable, it cannot be ptraced, and its /proc/1/{mem,environ,fd}
  // cannot be read, by anything inside. Its children are made dumpable again (init_reaping.h).
  if (::prctl(PR_SET_DUMPABLE, 0) != 0) reaper::throw_sys("PR_SET_DUMPABLE");
  if (::setsid() < 0) reaper::throw_sys("setsid");
  bring_loopback_up();
  bound_pids();
}

// Reads exactly `size` bytes; false at EOF first.
bool read_exact(int fd, char* to, size_t size) {
  while (size > 0) {
    const ssize_t n = ::read(fd, to, size);
    if (n == 0) return false;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) reaper::throw_sys("read the sandbox's request");
    to += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// The request: its length, then its bytes (send_request()).
std::string read_request(int go_fd) {
  uint32_t size = 0;
  std::string request;
  if (read_exact(go_fd, reinterpret_cast<char*>(&size), sizeof size)) {
    request.resize(size);
    if (read_exact(go_fd, request.data(), size)) return request;
  }
  ::_exit(1);  // the harness died while handing it over
}

}  // namespace

void run_pid_one(const SandboxBody& body, int go_fd, int out_fd) {
  unblock_interrupts();
  // Die with the harness. The go byte, which the harness sends only once it holds this
  // process's pidfd, closes the race where the harness died before this line.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  char go = 0;
  if (::read(go_fd, &go, 1) != 1) ::_exit(1);
  std::string result;
  try {
    set_process_title("reapcheck case runner");
    enter(go_fd);
    const std::string request = read_request(go_fd);
    ::close(go_fd);
    result = body(request);
  } catch (const std::exception& e) {
    write_all(out_fd, std::string("sandbox: ") + e.what());
    ::_exit(3);
  }
  write_all(out_fd, result);
  ::_exit(0);
}

bool send_request(int go_fd, const std::string& request) {
  const auto size = static_cast<uint32_t>(request.size());
  std::string message(reinterpret_cast<const char*>(&size), sizeof size);
  message += request;
  // PID 1 may have failed setting itself up and closed its end: that is EPIPE, not a SIGPIPE
  // that ends the harness. One pending before is left as it was.
  sigset_t pipe, old;
  ::sigemptyset(&pipe);
  ::sigaddset(&pipe, SIGPIPE);
  ::pthread_sigmask(SIG_BLOCK, &pipe, &old);
  sigset_t pending;
  ::sigpending(&pending);
  const bool was_pending = ::sigismember(&pending, SIGPIPE) == 1;
  const bool sent = write_all(go_fd, message);
  const timespec now{};
  if (!sent && !was_pending) ::sigtimedwait(&pipe, nullptr, &now);
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return sent;
}

}  // namespace reapcheck
