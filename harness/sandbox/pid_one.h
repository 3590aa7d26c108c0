// The case's PID 1: the last stage of the sandbox, in fresh user, PID, network and cgroup
// namespaces and the mount namespace the warden built (its /proc already mounted). It becomes root
// of its user namespace, leads a session of its own (so the groups and sessions of everything
// inside are visible inside), brings loopback up, and runs the body.
#pragma once

#include <functional>
#include <string>

namespace reapcheck {

// What PID 1 runs: given the request the harness hands it with its go, what the sandbox returns.
using SandboxBody = std::function<std::string(const std::string& request)>;

// Waits for the go on `go_fd` — a byte, then the request (send_go()); EOF first: whoever was to
// start it died — runs `body` on the request and writes what it returns, or why it failed, on
// `out_fd`. Exits 0 when the body returned.
[[noreturn]] void run_pid_one(const SandboxBody& body, int go_fd, int out_fd);
// The harness's side: writes the go and `request` on `go_fd`, which it keeps open (its closing
// tells PID 1 the harness died). False when PID 1 is gone.
bool send_go(int go_fd, const std::string& request);

}  // namespace reapcheck
