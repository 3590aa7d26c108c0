// Whether a thread blocked waiting on file descriptors — read, write, poll, select, epoll — has
// one of them ready already: then its wait is over and it runs as soon as it is scheduled, though
// /proc/<pid>/task/<tid>/syscall still shows the call. A helper of the reaper's blocked on the
// pidfd of the command it outlives reads so for a moment after the command has exited: it is not
// idle, whatever its wait says (issue 41).
#pragma once

#include <sys/types.h>

namespace reapcheck {

// `nr` and `args` are the call the thread `tid` of process `pid` is blocked in (x86_64 numbers).
// Each descriptor the call waits on is copied here (pidfd_getfd) and polled without waiting, for
// the events the thread waits for. False when none is ready, or when that cannot be told: a
// signalfd (which polls the reader's own signals) or an epoll whose items are such, a socket
// (not copied: a copy would hold a listening port), a descriptor that cannot be copied, a call
// not listed.
bool awaited_ready(pid_t pid, pid_t tid, long nr, const unsigned long long (&args)[6]);

}  // namespace reapcheck
