// The ledger's hold clock: shared with a forked process, counting the hold under way, and
// moving a deadline by what was held.
#include "harness/support/hold_clock.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vector>

namespace reapcheck {
namespace {

using Clock = HoldClock::Clock;

// Returns once the steady clock has moved past `t` (at most a tick away).
void after(Clock::time_point t) {
  while (Clock::now() <= t) {
  }
}

TEST(HoldClock, AHoldUnderWayCountsAndAnEndedOneStays) {
  HoldClock clock;
  EXPECT_EQ(clock.held().count(), 0);
  clock.hold(true);
  after(Clock::now());
  const auto during = clock.held();
  EXPECT_GT(during.count(), 0);
  clock.hold(true);  // still the same hold
  clock.hold(false);
  const auto ended = clock.held();
  EXPECT_GE(ended, during);
  after(Clock::now());
  EXPECT_EQ(clock.held(), ended);  // nothing counts between holds
}

TEST(HoldClock, AProcessForkedAfterItSeesTheSameClock) {
  HoldClock clock;
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    clock.hold(true);  // the ledger's side, in another process
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  const auto first = clock.held();
  after(Clock::now());
  EXPECT_GT(clock.held(), first);  // a hold under way, begun by the child
}

TEST(HoldClock, AWaitGoesOnForWhatWasHeldMeanwhileThenGivesUp) {
  HoldClock clock;
  const Clock::time_point deadline = Clock::now();
  std::vector<Clock::time_point> untils;
  const bool came = clock.wait(deadline, [&](Clock::time_point until) {
    untils.push_back(until);
    if (untils.size() == 1) {  // a hold while the first wait ran
      clock.hold(true);
      after(Clock::now());
      clock.hold(false);
    }
    return false;
  });
  EXPECT_FALSE(came);
  ASSERT_EQ(untils.size(), 2U);  // once more, for the hold; then no hold moved it further
  EXPECT_EQ(untils[0], deadline);
  EXPECT_GT(untils[1], deadline);
  EXPECT_TRUE(clock.wait(deadline, [](Clock::time_point) { return true; }));
}

}  // namespace
}  // namespace reapcheck
