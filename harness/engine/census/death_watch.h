// When did each member die? An epoll set over the members' pidfds, watched while the reaper
// works and then by the audit, so a death is timed when it happens rather than when somebody
// first looks. One wakeup per death: a 5,000-member tree costs no more than 5,000 events.
#pragma once

#include <chrono>
#include <vector>

#include "reaper/os/unique_fd.h"

namespace reapcheck {

class DeathWatch {
 public:
  using Clock = std::chrono::steady_clock;

  DeathWatch();

  // Watches the process behind `pidfd` (which must outlive the watch); returns its slot.
  int add(int pidfd);

  // Notes deaths until the deadline passes or: with `other_fd`, that fd is readable (returns
  // true); without it (-1), every watched process has exited.
  bool wait(Clock::time_point deadline, int other_fd = -1);

  bool dead(int slot) const { return died_.at(static_cast<size_t>(slot)); }
  // When the watch saw the slot's process die; only meaningful once dead(slot).
  Clock::time_point died_at(int slot) const { return died_at_.at(static_cast<size_t>(slot)); }
  bool all_dead() const { return alive_ == 0; }
  int alive() const { return alive_; }  // watched and not yet seen dead
  Clock::time_point last_death() const { return last_death_; }

 private:
  reaper::UniqueFd epoll_;
  std::vector<bool> died_;  // by slot
  std::vector<Clock::time_point> died_at_;
  int alive_ = 0;
  int other_ = -1;  // the fd registered as the extra wakeup, if any
  Clock::time_point last_death_{};
};

}  // namespace reapcheck
