// The case's PID 1: the last stage of the sandbox, in fresh user, PID, network and cgroup
// namespaces and the mount namespace the warden built (its /proc already mounted). It becomes root
// of its user namespace, leads a session of its own (so the groups and sessions of everything
// inside are visible inside), brings loopback up, and runs the body.
#pragma once

#include <functional>
#include <string>

namespace reapcheck {

// Waits for the go byte on `go_fd` (EOF: whoever was to start it died first), runs `body` and
// writes what it returns, or why it failed, on `out_fd`. Exits 0 when the body returned.
[[noreturn]] void run_pid_one(const std::function<std::string()>& body, int go_fd, int out_fd);

}  // namespace reapcheck
