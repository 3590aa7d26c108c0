// Deadlines: every bounded wait here is "until this point in time", and poll() and friends want
// the milliseconds left, never negative.
#pragma once

#include <algorithm>
#include <chrono>

namespace reaper {

inline std::chrono::milliseconds time_left(std::chrono::steady_clock::time_point deadline) {
  return std::max(std::chrono::duration_cast<std::chrono::milliseconds>(
                      deadline - std::chrono::steady_clock::now()),
                  std::chrono::milliseconds(0));
}

}  // namespace reaper
