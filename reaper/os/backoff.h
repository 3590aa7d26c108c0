// Waiting for something no event announces — a process stopping, a handler running, an id being
// freed — without spinning: look, and between looks wait a little longer each time (0, 1, 2, 4,
// 8 ms), on an fd when there is one whose readiness should end the wait sooner.
#pragma once

#include <poll.h>

#include <algorithm>
#include <chrono>

namespace reaper {

class Backoff {
 public:
  explicit Backoff(std::chrono::milliseconds cap = std::chrono::milliseconds(8)) : cap_(cap) {}

  // Waits the next step, or until `fd` (when not -1) has one of `events`, or `deadline`; returns
  // whether `fd` ended the wait.
  bool wait(std::chrono::steady_clock::time_point deadline, int fd = -1, short events = POLLIN) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    const auto step = std::max(std::chrono::milliseconds(0), std::min(step_, left));
    pollfd p{fd, events, 0};
    const int rc = ::poll(fd >= 0 ? &p : nullptr, fd >= 0 ? 1 : 0, static_cast<int>(step.count()));
    step_ = std::min(cap_, step_ * 2 + std::chrono::milliseconds(step_.count() == 0 ? 1 : 0));
    return rc > 0 && (p.revents & events) != 0;
  }

 private:
  std::chrono::milliseconds cap_;
  std::chrono::milliseconds step_{0};
};

}  // namespace reaper
