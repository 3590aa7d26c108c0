#include "reaper/os/clone.h"

#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

namespace reaper {

pid_t clone_child(int flags, int cgroup_fd, bool* joined) {
  if (joined != nullptr) *joined = false;
  if (cgroup_fd >= 0) {
    clone_args args{};
    args.flags = static_cast<std::uint64_t>(static_cast<unsigned>(flags)) | CLONE_INTO_CGROUP;
    args.exit_signal = SIGCHLD;
    args.cgroup = static_cast<std::uint64_t>(cgroup_fd);
    const long pid = ::syscall(SYS_clone3, &args, sizeof args);
    if (pid >= 0 || (errno != ENOSYS && errno != E2BIG)) {
      if (pid >= 0 && joined != nullptr) *joined = true;
      return static_cast<pid_t>(pid);
    }
  }
  // Without CLONE_VM or a new stack, clone() is fork() with flags.
  return static_cast<pid_t>(::syscall(SYS_clone, flags | SIGCHLD, nullptr, nullptr, nullptr, 0));
}

}  // namespace reaper
