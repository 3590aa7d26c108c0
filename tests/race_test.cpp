// The retry policy for race cases, with scripted attempts standing in for whole cases: a
// window that did not open is a failed set-up and is tried again; a verdict is final.
#include "harness/race.h"

#include <gtest/gtest.h>

#include <vector>

namespace reapcheck {
namespace {

CaseResult with_race(bool opened, Verdict verdict, const std::string& detail = "") {
  CaseResult c;
  c.verdict = verdict;
  c.race = RaceRecord{};
  c.race->opened = opened;
  c.race->detail = detail;
  return c;
}

// Returns the scripted results in turn, counting the calls.
struct Script {
  std::vector<CaseResult> results;
  int calls = 0;
  CaseResult operator()() { return results.at(static_cast<size_t>(calls++)); }
};

TEST(RaceRetry, RunsAgainUntilTheWindowOpens) {
  Script s{{with_race(false, Verdict::skipped), with_race(false, Verdict::skipped),
            with_race(true, Verdict::bystander_hit)}};
  CaseResult r = retry_unopened_race(std::ref(s), 3);
  EXPECT_EQ(s.calls, 3);
  EXPECT_EQ(r.verdict, Verdict::bystander_hit);
  ASSERT_TRUE(r.race);
  EXPECT_EQ(r.race->attempts, 3);
}

TEST(RaceRetry, AWindowThatNeverOpensIsASkipWithTheLastReason) {
  Script s{{with_race(false, Verdict::skipped, "first"), with_race(false, Verdict::skipped, "2nd"),
            with_race(false, Verdict::skipped, "the pid 5 was still taken")}};
  CaseResult r = retry_unopened_race(std::ref(s), 3);
  EXPECT_EQ(s.calls, 3);
  EXPECT_EQ(r.verdict, Verdict::skipped);
  EXPECT_EQ(r.race->attempts, 3);
  EXPECT_EQ(r.reason,
            "the race window never opened in 3 attempts; the last: the pid 5 was still taken");
}

TEST(RaceRetry, AVerdictIsFinalEvenWhenTheWindowDidNotOpen) {
  // A leak found on the way is a finding about the reaper, whatever became of the race.
  Script s{{with_race(false, Verdict::leak)}};
  CaseResult r = retry_unopened_race(std::ref(s), 3);
  EXPECT_EQ(s.calls, 1);
  EXPECT_EQ(r.verdict, Verdict::leak);
  EXPECT_EQ(r.race->attempts, 1);
}

TEST(RaceRetry, ACaseWithoutARaceRunsOnce) {
  CaseResult plain;
  plain.verdict = Verdict::skipped;
  Script s{{plain}};
  CaseResult r = retry_unopened_race(std::ref(s), 3);
  EXPECT_EQ(s.calls, 1);
  EXPECT_FALSE(r.race);
}

}  // namespace
}  // namespace reapcheck
