// pidfds: a handle on one process that stays valid when its pid is recycled.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <vector>

#include "reaper/os/unique_fd.h"

namespace reaper {

// Opens a pidfd for `pid`; empty when the process is already gone.
std::optional<UniqueFd> pidfd_open(pid_t pid);

// Waits until `fd` is readable or `timeout` passes; returns whether it became readable.
bool wait_readable(int fd, std::chrono::milliseconds timeout);

// Sends `sig` through the pidfd. Returns false when the process has already exited.
bool pidfd_signal(int pidfd, int sig);

// The same without throwing, for destructors and clean-up paths: whether the signal was sent.
bool pidfd_try_signal(int pidfd, int sig) noexcept;

// True once the process has exited (for a non-child: become a zombie or been reaped).
bool pidfd_exited(int pidfd);

// How the process ended, as a wait status (WIFEXITED, WTERMSIG...), from the pidfd alone — for
// any process, not only a child (PIDFD_GET_INFO, Linux 6.15), whether its parent has reaped it
// yet or not (a zombie's, from its stat). Empty while it runs, or where the kernel cannot tell.
std::optional<int> pidfd_exit_status(int pidfd);

// The pid that the pidfd `fd` of process `owner` names, as this process's /proc numbers it
// (/proc/<owner>/fdinfo/<fd>): -1 once that process has been reaped (its pid is free for reuse),
// 0 when it is not visible here. Empty when `fd` is not a pidfd or cannot be read.
std::optional<pid_t> pidfd_target(pid_t owner, int fd);

// What a pidfd_send_signal() on `owner`'s `fd` reaches. The kernel takes a /proc/<pid> directory
// there as well as a pidfd (`proc_dir`); like a pidfd, such an fd holds its process and not its
// number: `pid` is -1 once that process is gone, even if the number was taken again. Empty for
// any other fd.
struct SignalFd {
  pid_t pid = 0;
  bool proc_dir = false;
};
std::optional<SignalFd> signal_fd_target(pid_t owner, int fd);

// Waits until the process exits or `timeout` passes; returns whether it exited.
bool pidfd_wait_exit(int pidfd, std::chrono::milliseconds timeout);

// Waits until every process in `pidfds` has exited or `deadline` passes; returns how many are
// still running.
int pidfds_wait_exit(const std::vector<int>& pidfds,
                     std::chrono::steady_clock::time_point deadline);

}  // namespace reaper
