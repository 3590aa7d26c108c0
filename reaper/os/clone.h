// fork() with namespace flags, and optionally straight into a cgroup v2 directory.
#pragma once

#include <sys/types.h>

#include <string>

namespace reaper {

// Returns as fork() does (the child's pid, 0 in the child, -1 with errno). `flags` are clone
// flags (CLONE_NEWPID, CLONE_NEWNS...); the child's exit signal is SIGCHLD. With a `cgroup` (a
// cgroup v2 directory) the child starts in that group (clone3's CLONE_INTO_CGROUP, Linux 5.7):
// it never runs outside it, and no migration takes place, which a write to cgroup.procs makes
// and which waits for an RCU grace period, 10-15 ms a move here. Where the kernel lacks it
// (ENOSYS, or E2BIG from Linux 5.3-5.6), `*joined` is false in the child as in the parent, and
// the child is started in the caller's group: it joins by itself.
pid_t clone_child(int flags, const std::string& cgroup = {}, bool* joined = nullptr);

}  // namespace reaper
