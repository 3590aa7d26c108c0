// Ports a dev server leaves behind: is anything still accepting on 127.0.0.1:PORT, and who.
#pragma once

#include <sys/types.h>

#include <utility>
#include <vector>

namespace reapcheck {

// True when a TCP connection to 127.0.0.1:port or [::1]:port is accepted.
bool port_accepting(int port);

// True when a TCP socket of this network namespace listens on `port`.
bool port_listening(int port);

// The TCP ports the processes `pids` listen on, each with the first of them found holding it,
// sorted by port.
std::vector<std::pair<int, pid_t>> ports_held_by(const std::vector<pid_t>& pids);

// The pid of a process holding a listening socket on `port` (from /proc/net/tcp and the fds
// in /proc/<pid>/fd, or those of its threads where its first thread has exited); 0 when none is
// found.
pid_t port_holder(int port);

}  // namespace reapcheck
