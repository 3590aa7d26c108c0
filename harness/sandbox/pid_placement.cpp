#include "harness/sandbox/pid_placement.h"

#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <string>

namespace reapcheck {
namespace {

pid_t via_ns_last_pid(pid_t pid) {
  // Refuse anywhere but PID 1 of a namespace of our own: the host's ns_last_pid is never ours.
  if (::getpid() != 1) {
    errno = EPERM;
    return -1;
  }
  int fd = ::open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  std::string last = std::to_string(pid - 1);
  ssize_t n = ::write(fd, last.data(), last.size());
  ::close(fd);
  if (n != static_cast<ssize_t>(last.size())) return -1;
  pid_t child = ::fork();
  if (child == 0 && ::getpid() != pid) ::_exit(0);  // someone else took it first
  if (child > 0 && child != pid) {
    errno = EEXIST;
    return -1;
  }
  return child;
}

}  // namespace

pid_t fork_at_pid(pid_t pid) {
  pid_t tid[1] = {pid};
  clone_args args{};
  args.exit_signal = SIGCHLD;
  args.set_tid = reinterpret_cast<std::uintptr_t>(tid);
  args.set_tid_size = 1;
  long child = ::syscall(SYS_clone3, &args, sizeof args);
  if (child >= 0) return static_cast<pid_t>(child);
  if (errno == ENOSYS || errno == E2BIG) return via_ns_last_pid(pid);
  return -1;
}

}  // namespace reapcheck
