// Ports a dev server leaves behind: is anything still accepting on 127.0.0.1:PORT, and who.
#pragma once

#include <sys/types.h>

namespace reapcheck {

// True when a TCP connection to 127.0.0.1:port is accepted.
bool port_accepting(int port);

// The pid of a process holding a listening socket on `port` (from /proc/net/tcp and the fds
// in /proc/<pid>/fd, or those of its threads where its first thread has exited); 0 when none is
// found.
pid_t port_holder(int port);

}  // namespace reapcheck
