#include "reaper/os/pidfd.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "reaper/os/deadline.h"
#include "reaper/os/proc_table.h"
#include "reaper/os/read_file.h"
#include "reaper/os/sys_error.h"

namespace reaper {

UniqueFd dup_fd(int fd) {
  UniqueFd copy(::fcntl(fd, F_DUPFD_CLOEXEC, 0));
  if (!copy) throw_sys("dup");
  return copy;
}

Pipe make_pipe(bool cloexec) {
  int fds[2];
  if (::pipe2(fds, cloexec ? O_CLOEXEC : 0) != 0) throw_sys("pipe2");
  return Pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

std::optional<UniqueFd> pidfd_open(pid_t pid) {
  int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (fd >= 0) return UniqueFd(fd);
  // ESRCH: no such process; ENOENT: it was being reaped as we asked (pidfs).
  if (errno == ESRCH || errno == ENOENT) return std::nullopt;
  throw_sys("pidfd_open(" + std::to_string(pid) + ")");
}

bool pidfd_try_signal(int pidfd, int sig) noexcept {
  return ::syscall(SYS_pidfd_send_signal, pidfd, sig, nullptr, 0) == 0;
}

bool pidfd_signal(int pidfd, int sig) {
  if (pidfd_try_signal(pidfd, sig)) return true;
  if (errno == ESRCH) return false;
  throw_sys("pidfd_send_signal(" + std::to_string(sig) + ")");
}

bool wait_readable(int fd, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  pollfd p{fd, POLLIN, 0};
  for (;;) {
    int rc = ::poll(&p, 1, static_cast<int>(time_left(deadline).count()));
    if (rc > 0) return true;
    if (rc == 0) return false;
    if (errno != EINTR) throw_sys("poll");
  }
}

// A pidfd becomes readable when its process exits.
bool pidfd_wait_exit(int pidfd, std::chrono::milliseconds timeout) {
  return wait_readable(pidfd, timeout);
}

int pidfds_wait_exit(const std::vector<int>& pidfds,
                     std::chrono::steady_clock::time_point deadline) {
  // One at a time is as fast as a poll() over all of them: each wait ends when its process is
  // gone, and the deadline is shared.
  int left = 0;
  for (int fd : pidfds) left += pidfd_wait_exit(fd, time_left(deadline)) ? 0 : 1;
  return left;
}

bool pidfd_exited(int pidfd) {
  return pidfd_wait_exit(pidfd, std::chrono::milliseconds(0));
}

namespace {

// PIDFD_GET_INFO (linux/pidfd.h of 6.15; Debian 12's headers predate it).
struct PidfdInfo {
  std::uint64_t mask;
  std::uint64_t cgroupid;
  std::uint32_t pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
  std::int32_t exit_code;
  std::uint32_t coredump_mask;
  std::uint32_t spare;
};
constexpr unsigned long kPidfdGetInfo = _IOWR(0xFF, 11, PidfdInfo);
constexpr std::uint64_t kPidfdInfoExit = 1U << 3;

// PIDFD_GET_INFO's answer, asking for the exit too; empty when the kernel gives none.
std::optional<PidfdInfo> pidfd_info(int pidfd) {
  PidfdInfo info{};
  info.mask = kPidfdInfoExit;
  if (::ioctl(pidfd, kPidfdGetInfo, &info) != 0) return std::nullopt;
  return info;
}

bool has_exit(const std::optional<PidfdInfo>& info) {
  return info && (info->mask & kPidfdInfoExit) != 0;
}

}  // namespace

std::optional<int> pidfd_exit_status(int pidfd) {
  const auto info = pidfd_info(pidfd);
  if (has_exit(info)) return info->exit_code;
  if (!info || !pidfd_exited(pidfd)) return std::nullopt;
  // A zombie: the kernel hands the pidfd its status only once the parent reaps it, and keeps it
  // in the zombie's stat until then. Were it reaped while its stat is read, its pid could name
  // another process by the read: the stat counts only if the pidfd still has no status after it.
  const auto stat = parse_stat(read_file("/proc/" + std::to_string(info->pid) + "/stat"));
  if (const auto reaped = pidfd_info(pidfd); has_exit(reaped)) return reaped->exit_code;
  if (!stat || stat->state != 'Z' || stat->exit_code < 0) return std::nullopt;
  return stat->exit_code;
}

std::optional<pid_t> pidfd_target(pid_t owner, int fd) {
  const std::string path = "/proc/" + std::to_string(owner) + "/fdinfo/" + std::to_string(fd);
  UniqueFd info(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!info) return std::nullopt;
  char buf[512];
  const ssize_t n = ::read(info.get(), buf, sizeof buf - 1);
  if (n <= 0) return std::nullopt;
  buf[n] = '\0';
  // "Pid:\t<pid>" is there for pidfds only.
  const char* at = std::strstr(buf, "\nPid:");
  if (at == nullptr) return std::nullopt;
  return static_cast<pid_t>(std::strtol(at + 5, nullptr, 10));
}

std::optional<SignalFd> signal_fd_target(pid_t owner, int fd) {
  if (auto pid = pidfd_target(owner, fd)) return SignalFd{*pid, false};
  const std::string link = "/proc/" + std::to_string(owner) + "/fd/" + std::to_string(fd);
  char target[64];
  const ssize_t n = ::readlink(link.c_str(), target, sizeof target - 1);
  if (n <= 0) return std::nullopt;
  target[n] = '\0';
  char* end = nullptr;
  if (std::strncmp(target, "/proc/", 6) != 0) return std::nullopt;
  const long named = std::strtol(target + 6, &end, 10);
  if (end == target + 6 || named <= 0) return std::nullopt;
  if (std::strcmp(end, " (deleted)") == 0) return SignalFd{-1, true};  // its process is gone
  if (*end != '\0') return std::nullopt;
  // Through the link itself, not by number: the directory's entries open only while the very
  // process it was opened on lives.
  const std::string stat = read_file(link + "/stat");
  if (stat.empty()) return SignalFd{-1, true};
  return SignalFd{static_cast<pid_t>(std::strtol(stat.c_str(), nullptr, 10)), true};
}

}  // namespace reaper
