// What a case's stages read of processes: the process table, one process's entry, a pidfd on
// one, and where one is on its way. A case reads the kernel's answer (/proc and pidfds,
// kernel_processes()); a unit test gives its own, so that the stages run with no process of
// theirs. A pidfd here is any fd that turns readable once its process has exited — the kernel's
// pidfds, or a test's eventfds — so waiting on one (DeathWatch, reaper::pidfd_exited) needs
// nothing more. Not on a hot path: the signal ledger and the census read /proc themselves.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/engine/census/activity.h"
#include "harness/engine/census/census.h"
#include "harness/engine/census/stillness.h"
#include "reaper/os/proc_table.h"
#include "reaper/os/unique_fd.h"

namespace reapcheck {

class Processes {
 public:
  using Clock = std::chrono::steady_clock;

  virtual ~Processes() = default;

  // Every process of the case's PID namespace.
  virtual reaper::ProcTable table(reaper::Detail detail) const = 0;
  // One process; empty when it is gone or unreadable.
  virtual std::optional<reaper::ProcInfo> one(pid_t pid, reaper::Detail detail) const = 0;
  // A pidfd on `pid`, which names that process for good; empty when it is gone.
  virtual std::optional<reaper::UniqueFd> hold(pid_t pid) const = 0;
  // Alive and not dying (activity.h).
  virtual bool lives_on(pid_t pid, int pidfd) const = 0;
  // Where the process is on its way (activity.h), to a watch that ends at `horizon`.
  virtual Activity activity(pid_t pid, int pidfd, const Census& census,
                            Clock::time_point horizon) const = 0;
  // The threads of `pids` now, each with its count of switches off a CPU (stillness.h).
  virtual ThreadRuns thread_runs(const std::vector<pid_t>& pids) const = 0;
  // Sends `sig` through the pidfd; false when the process has exited.
  virtual bool signal(int pidfd, int sig) const = 0;
  // The process `pidfd` holds has exited and been reaped: its pid is free.
  virtual bool reaped(int pidfd) const = 0;
  // One field of /proc/<pid>/status ("SigCgt"); empty when it or the process is absent.
  virtual std::string status_field(pid_t pid, std::string_view field) const = 0;
  // The last pid the PID namespace allocated (the last field of /proc/loadavg): a fork moves it
  // even when its child is already gone.
  virtual std::string last_pid() const = 0;
  // The TCP ports any of `pids` listens on, each with the one that holds it (ports.h).
  virtual std::vector<std::pair<int, pid_t>> ports_held_by(
      const std::vector<pid_t>& pids) const = 0;
};

// The kernel's: /proc and pidfds.
const Processes& kernel_processes();

}  // namespace reapcheck
