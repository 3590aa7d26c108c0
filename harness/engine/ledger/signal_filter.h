// The reaper side's signals, seen at the system call: a seccomp filter, installed in the reaper
// host before it starts anything, that makes every signal-sending call (kill, tkill, tgkill,
// rt_sigqueueinfo, rt_tgsigqueueinfo, pidfd_send_signal) wait while a listener — the case runner's
// signal ledger — records it. Everything the host starts inherits the filter: the reaper's own
// processes, a supervisor, an exec: command, and the agent's tree, whose own signals are recorded
// but never count against the reaper.
#pragma once

#include <chrono>
#include <string>
#include <variant>

#include "reaper/os/unique_fd.h"

namespace reapcheck {

// Installs the filter in the calling process and returns the listener fd; the reason as a string
// when this machine cannot (no seccomp, no user notification). With `hold_exits` (watch), each
// exit_group() waits too, while the ledger reads the kernel's fork events up to it: a process
// is known by its pid in the sandbox only while it lives, and a test's process that exits in a
// millisecond would otherwise be gone before its children's births could be read.
std::variant<reaper::UniqueFd, std::string> install_signal_filter(bool hold_exits = false);

// Hands the listener (or the reason there is none) to the other end of a Unix socket.
void send_listener(int socket, const std::variant<reaper::UniqueFd, std::string>& listener);

// Receives what send_listener sent, waiting until `deadline`.
std::variant<reaper::UniqueFd, std::string> receive_listener(
    int socket, std::chrono::steady_clock::time_point deadline);

}  // namespace reapcheck
