// The retry policy for race cases, with scripted attempts standing in for whole cases: a
// window that did not open is a failed set-up and is tried again; a verdict is final.
#include "harness/engine/bystanders/race.h"

#include <gtest/gtest.h>

#include <vector>

#include "harness/model/judge.h"

namespace reapcheck {
namespace {

// The observations of one attempt: clean, or with a survivor (`leaked`).
CaseObservation with_race(bool opened, bool leaked, const std::string& detail = "") {
  CaseObservation c;
  if (leaked) c.survivors.push_back(ProcessRecord{5, 1, 5, 5, "S", "escaped", {"perl"}});
  c.race = RaceRecord{};
  c.race->opened = opened;
  c.race->detail = detail;
  return c;
}

// Returns the scripted results in turn, counting the calls.
struct Script {
  std::vector<CaseObservation> results;
  int calls = 0;
  CaseObservation operator()() { return results.at(static_cast<size_t>(calls++)); }
};

TEST(RaceRetry, RunsAgainUntilTheWindowOpens) {
  Script s{{with_race(false, false), with_race(false, false), with_race(true, false)}};
  CaseObservation r = retry_unopened_race(std::ref(s), 3);
  EXPECT_EQ(s.calls, 3);
  EXPECT_EQ(judge(r).verdict, Verdict::pass);
  ASSERT_TRUE(r.race);
  EXPECT_EQ(r.race->attempts, 3);
}

TEST(RaceRetry, AWindowThatNeverOpensIsASkipWithTheLastReason) {
  Script s{{with_race(false, false, "first"), with_race(false, false, "2nd"),
            with_race(false, false, "the pid 5 was still taken")}};
  CaseObservation r = retry_unopened_race(std::ref(s), 3);
  EXPECT_EQ(s.calls, 3);
  EXPECT_EQ(r.race->attempts, 3);
  const Judgement j = judge(r);
  EXPECT_EQ(j.verdict, Verdict::skipped);
  EXPECT_EQ(j.reason,
            "the race window never opened in 3 attempts; the last: the pid 5 was still taken");
}

TEST(RaceRetry, AVerdictIsFinalEvenWhenTheWindowDidNotOpen) {
  // A leak found on the way is a finding about the reaper, whatever became of the race.
  Script s{{with_race(false, true)}};
  CaseObservation r = retry_unopened_race(std::ref(s), 3);
  EXPECT_EQ(s.calls, 1);
  EXPECT_EQ(judge(r).verdict, Verdict::leak);
  EXPECT_EQ(r.race->attempts, 1);
}

TEST(RaceRetry, ACaseWithoutARaceRunsOnce) {
  CaseObservation plain;
  plain.blocked = Blocker{Blocker::Kind::unsupported, "no namespaces"};
  Script s{{plain}};
  CaseObservation r = retry_unopened_race(std::ref(s), 3);
  EXPECT_EQ(s.calls, 1);
  EXPECT_FALSE(r.race);
}

}  // namespace
}  // namespace reapcheck
