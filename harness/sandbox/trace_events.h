// The text of a tracefs `trace_pipe` with the signal:signal_generate event and kernel stack
// traces on, read back into the signals the kernel generated and where it generated them from.
//
// A signal sent by a system call (kill, tgkill, pidfd_send_signal, ...) is the seccomp ledger's;
// what only the tracepoint sees is what the kernel sends on a process's behalf without one:
// cgroup.kill, a terminal's hang-up, a PID namespace's teardown, the signals of an exit
// (parent-death signal, an orphaned group's SIGHUP). The stack names which; anything else
// (timers, faults, SIGPIPE) is no one's doing and is dropped.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace reapcheck {

// One generated signal, pids as the trace gives them (the initial PID namespace's).
struct GeneratedSignal {
  int64_t mono_ns = 0;  // CLOCK_MONOTONIC, the instance's trace_clock "mono"
  pid_t sender = 0;     // the thread in whose context the kernel generated it
  std::string sender_comm;
  pid_t target = 0;
  std::string target_comm;
  int sig = 0;
  int result = 0;      // TRACE_SIGNAL_*: 0 delivered, 1 ignored, 2 already pending, ...
  std::string origin;  // "cgroup.kill", "terminal", ... (kernel_origin)
};

// A fork, as the sched_process_fork event gives it: the thread that forked, and the new thread.
struct Fork {
  pid_t parent = 0;  // the forking thread (the event's own)
  pid_t child = 0;
};

// What the kernel was doing when it generated a signal, from its stack (innermost first); empty
// for a system call's signal and for those no process asked for.
std::string kernel_origin(const std::vector<std::string>& frames);

// Reads trace_pipe text a chunk at a time; whole events come out as their stack arrives.
class TraceEventReader {
 public:
  struct Output {
    std::vector<GeneratedSignal> signals;  // with an origin, in trace order
    std::vector<std::string> markers;      // trace_marker writes, in order
    std::vector<Fork> forked;              // sched_process_fork's, in order
  };
  // Feeds `text` (any split); returns what is now complete.
  Output feed(std::string_view text);

 private:
  struct Pending {
    GeneratedSignal signal;
    std::vector<std::string> frames;
  };
  void line(std::string_view text, Output& out);
  void finish(pid_t tid, Output& out);

  std::string partial_;
  std::map<pid_t, Pending> pending_;  // by thread: its event waits for its stack
  std::optional<pid_t> stack_of_;     // the thread whose stack's frames are being read
};

}  // namespace reapcheck
