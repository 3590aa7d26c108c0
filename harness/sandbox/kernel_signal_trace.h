// Signals the kernel generates for a sandbox's processes without a system call — cgroup.kill,
// a terminal's hang-up, a PID namespace's teardown, an exit's parent-death signal
// (trace_events.h) — recorded with the signal:signal_generate tracepoint in a tracing instance
// of this process's own, and handed to the case inside the sandbox as they happen.
//
// The tracepoint gives the initial PID namespace's pids. Only the host side can translate them,
// and only while the processes exist, so it translates each event as it arrives (the pid one
// level below it, the sandbox's) and forwards it on a pipe; the case's signal ledger resolves
// sender and target with its census, as it does for system calls. A marker written through the
// instance's trace_marker comes back on the same pipe after everything traced before it: the
// case's barrier.
//
// Needs root, tracefs, and the harness in the initial PID namespace; without them the case says
// it lacks this evidence.
//
// Making an instance costs about 50 ms and removing it about 200 (RCU grace periods, for the
// filter, the trigger and each event), which a process running a few cases pays for each. Asked
// to keep it (run --keep-trace: CTest's matrix tests, one process per scenario) a process takes a
// free kept instance, reapcheck-kept-N, and leaves it for the next: nothing of the last user's
// reaches a case, whose begin() drains the buffer, and the first thread it follows replaces the
// last user's in set_event_pid. Any process that keeps none removes the kept ones no process
// uses (`reapcheck clean`, and every run as it starts).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "harness/sandbox/fork_lineage.h"
#include "harness/sandbox/host_item.h"
#include "harness/sandbox/trace_events.h"
#include "reaper/os/unique_fd.h"

namespace reapcheck {

// What the case inside the sandbox reads: forwarded events and markers, one per line. Before a
// barrier's marker comes "M lost <n>" when the trace lost events since the case began.
struct KernelSignalFeed {
  int events = -1;  // the read end: kernel_signal_line() text
  int marker = -1;  // write "sync <n>" here; "M sync <n>" comes back on `events`
};

// The line for `s` on the feed, sender and target already in the sandbox's namespace (0: gone).
std::string kernel_signal_line(const GeneratedSignal& s);
// A feed line back; nullopt for a marker line, whose text then goes to `marker`.
std::optional<GeneratedSignal> parse_kernel_signal_line(const std::string& line,
                                                        std::string* marker);

// The feed a case in the sandbox may use, or why there is none. Valid in the sandbox's body,
// which inherits it from the KernelSignalTrace that set it up.
std::variant<KernelSignalFeed, std::string> kernel_signal_feed();

struct TraceInstance;  // the process's tracing instance

// The host side of one case: forwards what the sandbox's processes make the kernel send.
class KernelSignalTrace {
 public:
  // Starts tracing for the next sandbox (its body inherits the feed), or says why it cannot
  // (`wanted`: false when the run records no signals at all). `keep`: the process's instance,
  // when this makes it, is a kept one (taken from the last process, left for the next).
  static std::variant<KernelSignalTrace, std::string> start(bool wanted, bool keep);
  ~KernelSignalTrace();
  KernelSignalTrace(KernelSignalTrace&&) noexcept;
  KernelSignalTrace& operator=(KernelSignalTrace&&) = delete;
  KernelSignalTrace(const KernelSignalTrace&) = delete;
  KernelSignalTrace& operator=(const KernelSignalTrace&) = delete;

  // Names the sandbox whose PID 1 is `pid_one` (its host pid): its pids are the ones forwarded.
  // Every sandbox this thread clones is traced from its start.
  void follow(pid_t pid_one);
  // Called as the sandbox's case begins, once the last case's sandbox is gone: what is already in
  // the trace is the last case's, not this one's. A sandbox made ahead of its case starts its
  // trace while the last case still runs, and begins it only here.
  void begin();
  // The fd to poll for events to forward.
  int pollable() const;
  // Forwards whatever the trace holds now.
  void pump();

  // Removes this process's tracing instance, or leaves a kept one for the next process; a
  // process that traced must call it before _exit.
  static void close_instance();
  // Removes the tracing instances of runs that died without removing theirs, and, with
  // `kept_too` (`reapcheck clean`), the kept ones no process uses; returns how many. A run never
  // removes kept instances: another run on the host may be between two uses of one.
  static int reclaim_abandoned(bool kept_too);
  // Every tracing instance of ours, a run's own or kept, in use or not: what reclaim_abandoned
  // looks at. None where this process cannot trace (not root, not in the initial PID namespace).
  static std::vector<HostItem> list();

 private:
  KernelSignalTrace(TraceInstance& in, reaper::Pipe feed);
  // The sandbox's pid for a host pid: as translated at its birth, else now; 0 when gone.
  pid_t in_sandbox(pid_t host_pid);

  TraceInstance* in_;  // the process's tracing instance, which outlives every case
  reaper::Pipe feed_;
  int level_ = 1;  // where the sandbox's pid sits in a process's NSpid line
  TraceEventReader reader_;
  std::unordered_map<pid_t, pid_t> born_;  // host pid → the sandbox's, at the fork
  ForkLineage lineage_;                    // who forked whom, forwarded as births
  uint64_t lost_before_ = 0;               // the ring buffers' losses when the case began
};

}  // namespace reapcheck
