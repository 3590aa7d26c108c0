// PID namespaces as the case runner sees them: a process in a namespace nested below the
// runner's (the pidns reaper's agent, a helper a reaper made) has ids of its own there, and what
// it signals by id or with kill(-1) is that namespace's.
#pragma once

#include <sys/types.h>

#include <vector>

namespace reapcheck {

// The inode of `pid`'s PID namespace; 0 when it cannot be read (the process is gone).
ino_t pid_namespace_of(pid_t pid);

// The inode of the reader's own PID namespace.
ino_t own_pid_namespace();

// A namespace between a process and the reader: its inode and its init's pid, as the reader
// sees it (0 when unknown).
struct NamespaceLevel {
  ino_t inode = 0;
  pid_t init = 0;
};

// The namespaces from `pid`'s own up to, not including, the reader's, innermost first; empty
// for a process of the reader's own namespace (or one that is gone).
std::vector<NamespaceLevel> enclosing_namespaces(pid_t pid);

// The id a sender wrote (its "NSpid" or "NSpgid" `field`: a pid or a group id), in the reader's
// namespace: a sender in a PID namespace of its own (the pidns reaper's agent and its tree)
// writes ids of that namespace. 0 when nothing there holds it.
pid_t in_our_namespace(pid_t sender, pid_t id, const char* field);

}  // namespace reapcheck
