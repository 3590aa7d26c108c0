// How a thread is waiting, from /proc/<pid>/task/<tid>/syscall: the system call it is blocked in
// and, for a call with a timeout, when that timeout ends at the earliest. activity.h builds on it.
#pragma once

#include <sys/types.h>
#include <time.h>

#include <cstddef>
#include <optional>
#include <string>

namespace reapcheck {

// Only x86_64's call numbers are known; elsewhere every wait is `unknown`, which callers take as
// "may act", so nothing is judged too soon.
enum class Wait {
  forever,      // blocked with no timeout, or one that ends past the horizon; or stopped
  deadline,     // blocked with a timeout that may end before the horizon
  unknown,      // blocked in a call not known here
  running,      // not blocked
  signal_call,  // in a signal-sending call, which the signal filter makes wait for the ledger
};

// The wait of the thread at `task` (/proc/<pid>/task/<tid>); `horizon`, in ms of CLOCK_BOOTTIME,
// is where the caller's watch ends.
Wait thread_wait(const std::string& task, const std::optional<double>& horizon);

// `size` bytes at `address` in the memory of thread `tid`, read while it is blocked in its call
// (what the call points at: a timeout, a poll set); false when they cannot all be read.
bool read_thread_memory(pid_t tid, unsigned long long address, void* into, size_t size);

// The thread id of /proc/<pid>/task/<tid>.
pid_t tid_of(const std::string& task);

// The time on `clock`, in ms.
double now_ms(clockid_t clock);

}  // namespace reapcheck
