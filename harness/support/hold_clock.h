// How long the signal ledger has held the reaper's calls so far in a case: a clock the case
// runner's ledger thread advances and the reaper host reads, in a page the two share (mapped
// before the host is forked). A reaper without the ledger never spends that time, so every
// deadline set on the reaper — the reaper host's on its command, the case runner's on the
// host's reply — moves by it: a hold never makes a correct reaper time out.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>

namespace reapcheck {

class HoldClock {
 public:
  using Clock = std::chrono::steady_clock;

  HoldClock();  // throws when the page cannot be mapped
  ~HoldClock();
  HoldClock(const HoldClock&) = delete;
  HoldClock& operator=(const HoldClock&) = delete;

  // A hold begins (at least one call is held) or ends (none is): the ledger thread's alone.
  void hold(bool held);
  // The time held so far, the hold under way included.
  std::chrono::nanoseconds held() const;

  // `deadline` moved by what was held since `held_before` (an earlier held()).
  Clock::time_point moved(Clock::time_point deadline, std::chrono::nanoseconds held_before) const {
    return deadline + std::chrono::duration_cast<Clock::duration>(held() - held_before);
  }

  // Waits with `wait(until)` (true: what it waited for came) until `deadline`, moved by every
  // hold begun meanwhile; false once a wait ends with no hold to move the deadline further.
  bool wait(Clock::time_point deadline, const std::function<bool(Clock::time_point)>& wait) const;

  // The case's clock, for the reaper host, which inherits it; null outside a case.
  static const HoldClock* of_case();
  static void set_case(const HoldClock* clock);

 private:
  struct Page {
    std::atomic<int64_t> total_ns{0};  // the holds that ended
    std::atomic<int64_t> since_ns{0};  // when the hold under way began; 0: none
  };
  static_assert(std::atomic<int64_t>::is_always_lock_free, "shared between processes");
  Page* page_;
};

}  // namespace reapcheck
