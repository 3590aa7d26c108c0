#include "harness/sandbox/case_proc.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "reaper/os/pidfd.h"
#include "reaper/os/sys_error.h"
#include "reaper/os/unique_fd.h"

namespace reapcheck {
namespace {

using reaper::UniqueFd;

// In the helper: the steps of the mount; the errno of the one that failed, or 0.
int mount_proc_here() {
  UniqueFd fs(::fsopen("proc", FSOPEN_CLOEXEC));
  if (!fs) return errno;
  if (::fsconfig(fs.get(), FSCONFIG_CMD_CREATE, nullptr, nullptr, 0) != 0) return errno;
  UniqueFd mnt(::fsmount(fs.get(), FSMOUNT_CLOEXEC,
                         MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC));
  if (!mnt) return errno;
  if (::move_mount(mnt.get(), "", AT_FDCWD, "/proc", MOVE_MOUNT_F_EMPTY_PATH) != 0) return errno;
  return 0;
}

}  // namespace

void mount_case_proc(pid_t pid_one) {
  auto ns = reaper::pidfd_open(pid_one);
  if (!ns) reaper::throw_sys("pidfd_open(the case's PID 1)");
  // The caller's own PID namespace stays; only the children it forks from now on are inside.
  if (::setns(ns->get(), CLONE_NEWPID) != 0) reaper::throw_sys("join the case's PID namespace");
  const pid_t helper = ::fork();
  if (helper < 0) reaper::throw_sys("fork the /proc helper");
  if (helper == 0) ::_exit(mount_proc_here());
  int status = 0;
  while (::waitpid(helper, &status, 0) < 0) {
    if (errno != EINTR) reaper::throw_sys("wait for the /proc helper");
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    reaper::throw_sys("mount the case's /proc", WIFEXITED(status) ? WEXITSTATUS(status) : EINTR);
  }
}

}  // namespace reapcheck
