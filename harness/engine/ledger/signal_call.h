// A signal-sending system call, read while its sender waits: who sent it, what it addressed, and
// what that held at that instant (the signal ledger's record of it, before any settling).
#pragma once

#include <linux/seccomp.h>

#include <optional>

#include "harness/engine/census/census.h"
#include "harness/model/result.h"
#include "harness/sandbox/kernel_signal_trace.h"

namespace reapcheck {

// A signal-sending call (kill, tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo,
// pidfd_send_signal), as opposed to the calls that act on another process without a signal
// (ptrace, process_vm_writev, pidfd_getfd, process_madvise, prlimit64, setpriority, ioprio_set,
// sched_set*): those are recorded too, with what they did in `signal` ("PTRACE_SEIZE",
// "priority"), and count against the reaper as a signal does when they reach outside the tree.
bool is_signal_call(long nr);

// The one process a signal call by number names (kill or rt_sigqueueinfo of a pid, a thread
// kill); nothing for a group, every process or a pidfd, nor for a sender in a PID namespace of
// its own (whose ids only a scan of /proc would translate).
std::optional<pid_t> named_process(const seccomp_notif& call);

// `call`, made by `sender` (signal_sender()), resolved by `census`: the target as written, what
// it reaches now (ids a sender in a PID namespace of its own writes are that namespace's), the
// signal's name, and what the call does ("sent", "no such process", "invalid signal").
SignalRecord resolve_signal_call(const seccomp_notif& call, const Party& sender,
                                 const Census& census);

// Who made a call, as the census tells it: a process it cannot place is the reaper's side.
Party signal_sender(pid_t pid, const Census& census);

// Whether a call of `sender`'s is the reaper's side's doing (the reaper host's included).
bool reapers_side(const Party& sender);

// A signal the kernel generated in a process's context, resolved by `census` when it reaches the
// ledger, a moment after: a target already reaped is named by what the census registered there.
SignalRecord resolve_kernel_signal(const GeneratedSignal& signal, const Census& census);

}  // namespace reapcheck
