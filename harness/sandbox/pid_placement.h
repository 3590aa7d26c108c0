// Creating a process on an exact pid, to stand where a reaper believes a member still is.
// Only ever used inside the sandbox, where the runner is PID 1 and nobody else competes for pids.
#pragma once

#include <sys/types.h>

namespace reapcheck {

// Like fork(), but the child gets exactly `pid` in the caller's PID namespace: clone3 with
// set_tid, or, where the kernel lacks it, ns_last_pid (written only when this process is PID 1
// of its own namespace). Returns the pid in the parent and 0 in the child; -1 with errno EEXIST
// while `pid` is still taken (a zombie not yet reaped), or another errno on failure.
pid_t fork_at_pid(pid_t pid);

}  // namespace reapcheck
