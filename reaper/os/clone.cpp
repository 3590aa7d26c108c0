#include "reaper/os/clone.h"

#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "reaper/os/unique_fd.h"

namespace reaper {

pid_t clone_child(int flags, const std::string& cgroup, bool* joined) {
  if (joined != nullptr) *joined = false;
  if (!cgroup.empty()) {
    const UniqueFd group(::open(cgroup.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!group) return -1;
    clone_args args{};
    args.flags = static_cast<std::uint64_t>(static_cast<unsigned>(flags)) | CLONE_INTO_CGROUP;
    args.exit_signal = SIGCHLD;
    args.cgroup = static_cast<std::uint64_t>(group.get());
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
