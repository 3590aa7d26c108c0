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

// Waits on `go_fd` for the go byte (the warden has mapped it and mounted its /proc), sets itself
// up, waits for the request (send_request()), runs `body` on it and writes what it returns, or
// why it failed, on `out_fd`. EOF before either: whoever was to start it died. Exits 0 when the
// body returned.
[[noreturn]] void run_pid_one(const SandboxBody& body, int go_fd, int out_fd);
// The harness's side, once the go byte is sent: writes `request` on `go_fd`, which it keeps open
// (its closing tells PID 1 the harness died). False when PID 1 is gone.
bool send_request(int go_fd, const std::string& request);

}  // namespace reapcheck
