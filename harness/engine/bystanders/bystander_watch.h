// What a case's stages ask of the bystanders (bystanders.h) once they are in place: what the
// sibling agent is spawned with, and once spawned its members adopted as bystanders; that every
// one begun is ready, what they are (the tree ends at them), a note of their attributes before
// the kill, and after it, once what was sent has taken effect, every harm done to them; and a
// decoy for the PID-reuse race. Bystanders is the real one; a unit test gives its own.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "harness/model/result.h"

namespace reapcheck {

class BystanderWatch {
 public:
  using Clock = std::chrono::steady_clock;

  virtual ~BystanderWatch() = default;

  // The environment a process started as a bystander gets, and the fd it announces itself on.
  virtual std::vector<std::string> env() const = 0;
  virtual int ready_fd() const = 0;
  // Waits, until `deadline`, for a bystander spawned elsewhere (the sibling agent's tree) to
  // announce itself as `role`, and watches it from then on.
  virtual void adopt(const std::string& role, Clock::time_point deadline) = 0;

  // Waits, until `deadline`, until every bystander begun is ready.
  virtual void await_begun(Clock::time_point deadline) = 0;
  // The bystanders and, for each, its ancestors below `host`.
  virtual std::set<pid_t> pids_with_ancestors_below(pid_t host) const = 0;
  // Before the kill: what harm without a signal would change of each.
  virtual void note_attributes() = 0;
  // One attempt to start a decoy on exactly `pid`; false while the pid is still taken.
  virtual bool try_place_decoy(pid_t pid, const std::string& role) = 0;
  // After the kill: waits until `deadline` for every signal sent to a bystander to take effect.
  virtual void settle(Clock::time_point deadline) const = 0;
  // Every harm done to a bystander so far.
  virtual std::vector<BystanderHit> hits() const = 0;
};

}  // namespace reapcheck
