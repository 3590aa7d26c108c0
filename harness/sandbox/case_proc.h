// The case's /proc, mounted by the warden over the host's. The case could not mount it itself: it
// has no privilege over the mount namespace it lives in (host_view.h), which is also why it cannot
// unmount it to see the host's /proc underneath.
#pragma once

#include <sys/types.h>

namespace reapcheck {

// Mounts a proc of `pid_one`'s PID namespace on /proc of the caller's mount namespace. procfs
// shows the namespace of the process that creates it, so a helper that joins the namespace
// creates it; the caller's privilege mounts it. Throws with the step that failed.
void mount_case_proc(pid_t pid_one);

}  // namespace reapcheck
