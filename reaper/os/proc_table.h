// A snapshot of /proc: who is alive, who is whose parent, which group and session.
//
// Lives in reaper/ rather than harness/ because both the reapers and the harness's audit read
// /proc, and reaper/ may not depend on harness/.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace reaper {

struct StatFields {
  pid_t pid = 0;
  std::string comm;
  char state = '?';
  pid_t ppid = 0;
  pid_t pgid = 0;
  pid_t sid = 0;
  unsigned long flags = 0;       // the kernel's PF_* flags of the task (PF_EXITING: in its exit)
  long threads = 0;              // how many threads it has (0 when the kernel does not say)
  std::uint64_t start_time = 0;  // clock ticks after boot; with pid, names one process for good
  // A zombie's wait status (WIFEXITED, WTERMSIG...), kept until its parent reaps it; 0 while it
  // runs, -1 when the kernel does not say.
  int exit_code = -1;
};

struct ProcInfo : StatFields {
  std::vector<std::string> argv;  // empty for kernel threads and zombies
  std::string cwd;                // empty when unreadable
};

// What to read per process. `stat` alone is what a reaper needs to walk a tree; `argv` adds the
// command line (a name for it); `full` adds the cwd too, for reports and for matching.
enum class Detail { stat, argv, full };

// Parses the text of /proc/<pid>/stat. The comm field may hold spaces and parentheses, so the
// fields after it are found from the *last* ')'. Empty on malformed input.
std::optional<StatFields> parse_stat(std::string_view text);

// Splits /proc/<pid>/cmdline (NUL-separated, usually NUL-terminated) into arguments.
std::vector<std::string> parse_cmdline(std::string_view text);

// The value of one field of /proc/<pid>/status ("NSpid", "SigPnd", ...), without the name and
// leading whitespace; empty when the field or the process is absent.
std::string status_field(pid_t pid, std::string_view field);
// The same from the text of a status file, read already.
std::string status_field(std::string_view status, std::string_view field);

class ProcTable {
 public:
  // Every process of this PID namespace. Processes that vanish mid-read are left out. For
  // Detail::stat of /proc, from the BPF task iterator where it is available (task_iter.h).
  static ProcTable read(const std::string& proc_root = "/proc", Detail detail = Detail::full);

  // The same from the files of `proc_root` alone: one openat, read and close per process.
  static ProcTable read_proc_files(const std::string& proc_root = "/proc",
                                   Detail detail = Detail::full);

  // A table of the given entries, as a read would hold them (sorted by pid): what a unit test
  // stands in for /proc with.
  static ProcTable of(std::vector<ProcInfo> procs);

  // Reads one process; empty when it is gone or unreadable.
  static std::optional<ProcInfo> read_one(pid_t pid, Detail detail = Detail::full,
                                          const std::string& proc_root = "/proc");

  const std::vector<ProcInfo>& all() const { return procs_; }
  const ProcInfo* find(pid_t pid) const;

 private:
  std::vector<ProcInfo> procs_;  // sorted by pid
};

}  // namespace reaper
