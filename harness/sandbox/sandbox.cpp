#include "harness/sandbox/sandbox.h"

#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>

#include "harness/support/interrupt.h"
#include "harness/support/write_all.h"
#include "reaper/os/deadline.h"
#include "reaper/os/pidfd.h"
#include "reaper/os/sys_error.h"
#include "reaper/os/task_iter.h"
#include "reaper/os/write_file.h"
#include "reaper/reaper.h"

namespace reapcheck {
namespace {

using reaper::UniqueFd;

// Room for the largest scenario (1,000 members and their fork storms) with margin.
constexpr int kSandboxPidMax = 8192;

void bring_loopback_up() {
  UniqueFd s(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
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
// reaper) cannot exhaust the machine. Only ever written as PID 1 of our own namespace.
void bound_pids() {
  if (::getpid() != 1 || !pid_max_is_per_namespace()) return;
  std::ofstream limit("/proc/sys/kernel/pid_max");
  limit << kSandboxPidMax;  // best effort: a rootless sandbox may not be allowed to
}

// PID 1's set-up: private mounts, its own /proc, a session of its own (so the groups and
// sessions of everything inside are visible inside), loopback up, scratch on tmpfs.
void enter(const SandboxOptions& options) {
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    reaper::throw_sys("make / private");
  }
  if (::mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0) {
    reaper::throw_sys("mount /proc");
  }
  if (!options.scratch.empty() &&
      ::mount("tmpfs", options.scratch.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") != 0) {
    reaper::throw_sys("mount tmpfs on " + options.scratch.string());
  }
  if (::setsid() < 0) reaper::throw_sys("setsid");
  bring_loopback_up();
  bound_pids();
}

[[noreturn]] void child_main(const std::function<std::string()>& body,
                             const SandboxOptions& options, int go_fd, int out_fd) {
  unblock_interrupts();
  // Die with the parent. The go byte closes the race where the parent died before this line:
  // then the read below sees EOF instead of the byte.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  char go = 0;
  if (::read(go_fd, &go, 1) != 1) ::_exit(1);
  ::close(go_fd);
  std::string result;
  try {
    enter(options);
    result = body();
  } catch (const std::exception& e) {
    result = std::string("sandbox: ") + e.what();
    write_all(out_fd, result);
    ::_exit(3);
  }
  write_all(out_fd, result);
  ::_exit(0);
}

pid_t clone_namespaces(int flags) {
  return static_cast<pid_t>(::syscall(SYS_clone, flags | SIGCHLD, nullptr, nullptr, nullptr, 0));
}

// Everything PID 1 writes on `fd` until it exits (EOF: every writer is gone); empty when the
// deadline passes first. Throws Interrupted when a watched signal arrives meanwhile.
std::optional<std::string> read_until_exit(int fd, std::chrono::steady_clock::time_point deadline) {
  std::string output;
  char buf[65536];
  for (;;) {
    const auto left = reaper::time_left(deadline);
    if (left.count() <= 0) return std::nullopt;
    pollfd fds[2] = {{fd, POLLIN, 0}, {interrupt_fd(), POLLIN, 0}};
    const int rc = ::poll(fds, interrupt_fd() >= 0 ? 2 : 1, static_cast<int>(left.count()));
    if (rc < 0 && errno != EINTR) reaper::throw_sys("poll(sandbox)");
    if (rc > 0 && (fds[1].revents & POLLIN)) throw_if_interrupted();
    if (rc > 0 && (fds[0].revents & (POLLIN | POLLHUP))) {
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n > 0) output.append(buf, static_cast<size_t>(n));
      if (n == 0) return output;
      if (n < 0 && errno != EINTR) reaper::throw_sys("read(sandbox)");
    }
  }
}

// How PID 1 ended, with what it wrote: finished only when it exited 0.
SandboxOutcome outcome_of(int pidfd, std::string output) {
  siginfo_t info{};
  ::waitid(P_PIDFD, static_cast<id_t>(pidfd), &info, WEXITED | WNOWAIT);
  if (info.si_code == CLD_EXITED && info.si_status == 0) {
    return {SandboxOutcome::Status::finished, std::move(output)};
  }
  if (output.empty()) {
    output = info.si_code == CLD_EXITED
                 ? "the sandbox exited with status " + std::to_string(info.si_status)
                 : "the sandbox was killed by " + reaper::signal_name(info.si_status);
  }
  return {SandboxOutcome::Status::crashed, std::move(output)};
}

}  // namespace

SandboxOutcome run_in_sandbox(const std::function<std::string()>& body,
                              const SandboxOptions& options) {
  // Loaded here, once per process, so that every sandbox inherits the iterator rather than
  // paying libbpf's load inside each case.
  reaper::task_iter_available();
  const bool rootless = ::geteuid() != 0;
  int flags = CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET | (rootless ? CLONE_NEWUSER : 0);
  reaper::Pipe go = reaper::make_pipe();
  reaper::Pipe out = reaper::make_pipe();
  const uid_t uid = ::geteuid();
  const gid_t gid = ::getegid();

  std::fflush(nullptr);  // the child must not flush our buffered output a second time
  pid_t pid = clone_namespaces(flags);
  if (pid < 0) {
    const int err = errno;
    if (err == EPERM || err == EINVAL || err == ENOSPC || err == EUSERS) {
      return {SandboxOutcome::Status::unavailable,
              std::string("this machine cannot create the sandbox's namespaces (") +
                  (rootless ? "user, " : "") + "PID, mount, network): " + std::strerror(err)};
    }
    reaper::throw_sys("clone the sandbox", err);
  }
  if (pid == 0) {
    go.write.reset();
    out.read.reset();
    child_main(body, options, go.read.get(), out.write.get());
  }
  go.read.reset();
  out.write.reset();
  auto pidfd = reaper::pidfd_open(pid);
  if (!pidfd) reaper::throw_sys("pidfd_open(sandbox)", ESRCH);

  // From here on the child is ours to end: every exit path below kills and reaps it.
  struct Reap {
    pid_t pid;
    int pidfd;
    ~Reap() {
      reaper::pidfd_try_signal(pidfd, SIGKILL);  // fails once it has exited
      ::waitpid(pid, nullptr, 0);
    }
  } reap{pid, pidfd->get()};

  if (rootless) {
    const std::string proc = "/proc/" + std::to_string(pid);
    reaper::write_file(proc + "/uid_map", "0 " + std::to_string(uid) + " 1\n");
    reaper::write_file(proc + "/setgroups", "deny\n");
    reaper::write_file(proc + "/gid_map", "0 " + std::to_string(gid) + " 1\n");
  }
  if (::write(go.write.get(), "g", 1) != 1) reaper::throw_sys("start sandbox");

  std::optional<std::string> output =
      read_until_exit(out.read.get(), std::chrono::steady_clock::now() + options.deadline);
  if (!output) {
    return {
        SandboxOutcome::Status::timed_out,
        "the sandbox did not finish within " + std::to_string(options.deadline.count()) + " ms"};
  }
  return outcome_of(pidfd->get(), std::move(*output));
}

namespace {

constexpr std::string_view kScratchPrefix = "reapcheck-";

std::filesystem::path temp_dir() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
}

}  // namespace

ScratchDir::ScratchDir() : dir_(temp_dir(), kScratchPrefix) {}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  std::filesystem::remove_all(dir_.path(), ec);
}

int ScratchDir::reclaim_abandoned() {
  int removed = 0;
  for (const OwnedDir& dir : OwnedDir::abandoned(temp_dir(), kScratchPrefix)) {
    std::error_code ec;
    removed += std::filesystem::remove_all(dir.path(), ec) > 0 ? 1 : 0;
  }
  return removed;
}

}  // namespace reapcheck
