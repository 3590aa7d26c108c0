// Who forked whom in a sandbox, from the kernel's fork events: the lineage that holds however a
// process detaches later (a double fork, setsid, its parent's exit), which /proc's parent links do
// not keep. The trace gives the initial PID namespace's thread ids; the case wants its own
// sandbox's process ids, and only a live process can be translated. A parent that forked and
// exited before its event was read (a double fork's middle process) is passed over for its own
// nearest ancestor that could be: its child is then recorded as born of that ancestor, which
// names the same side of the case, since nothing was registered in between.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <unordered_map>

#include "harness/sandbox/trace_events.h"

namespace reapcheck {

// A birth in the sandbox's own pids: `child`'s process was forked by `parent`'s.
struct Birth {
  pid_t parent = 0;
  pid_t child = 0;
};

// The line for `b` on the kernel feed (kernel_signal_trace.h), and back.
std::string birth_line(const Birth& b);
std::optional<Birth> parse_birth_line(const std::string& line);

class ForkLineage {
 public:
  // `level`: the sandbox's PID namespace level (0: the initial one).
  void set_level(int level) { level_ = level; }
  // Forgets the last case's threads: host thread ids may be reused between cases.
  void clear();
  // The birth a fork event records, or nothing: a new thread of the same process, or a child
  // already gone.
  std::optional<Birth> born(const Fork& fork);

 private:
  // The sandbox's pid of the process that thread `tid` belongs to; 0 when it is gone.
  pid_t process_of(pid_t tid);

  int level_ = 0;
  std::unordered_map<pid_t, pid_t> process_;  // host tid → sandbox process id, once read
  std::unordered_map<pid_t, pid_t> parent_;   // host tid → the host tid that forked it
};

}  // namespace reapcheck
