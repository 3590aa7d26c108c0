// The reaper running inside the tree it kills (tree-kill#45: a program that kills its own tree
// on its way out). For a case whose [case] request is from-agent, the agent starts a child that
// runs the reaper's kill command on the agent's own tree when asked; that child announces itself
// as "inside-reaper" and is, with everything it starts, the reaper's own.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <string_view>

#include "harness/engine/census/census.h"
#include "harness/engine/census/death_watch.h"
#include "harness/engine/reaper_side/reaper_host.h"
#include "reaper/os/unique_fd.h"

namespace reapcheck {

class InsideReaper {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::string_view kRole = "inside-reaper";

  // The announced child, registered with `census` as the reaper's own.
  void adopt(pid_t pid, reaper::UniqueFd pidfd, Census& census);
  bool adopted() const { return static_cast<bool>(pidfd_); }

  // Asks it to run its command (SIGUSR2), noting deaths in `watch` until it has exited; at
  // `deadline` it is SIGKILLed and the reply says it timed out. An exit with a non-zero status
  // is an error, read through its pidfd (it is not our child; where the kernel cannot tell,
  // Linux before 6.15, the evidence is what it did).
  ReaperHost::Reply run(DeathWatch& watch, Clock::time_point deadline);

 private:
  pid_t pid_ = 0;
  reaper::UniqueFd pidfd_;
};

}  // namespace reapcheck
