// The time left of a run's progress lines: each case still to run estimated by its cell's last
// time (scaled), its scenario's mean, or the median of the scenarios seen; divided among the
// workers.
#include "harness/cli/time_left.h"

#include <gtest/gtest.h>

namespace reapcheck {
namespace {

// Scenario a on four reapers, b on two.
std::vector<CellKey> plan() {
  return {{"a", "r1"}, {"a", "r2"}, {"a", "r3"}, {"a", "r4"}, {"b", "r1"}, {"b", "r2"}};
}

TEST(TimeLeft, NothingIsKnownBeforeACaseFinishes) {
  const TimeLeft estimate(plan(), 2);
  EXPECT_FALSE(estimate.seconds().has_value());
}

TEST(TimeLeft, EachScenarioByItsOwnMeanTheUnseenByTheMeanOfTheSeen) {
  TimeLeft estimate(plan(), 2);
  estimate.finished({"a", "r1"}, 1000);
  // 3 of a and 2 of b (not seen: as a) left, at 1 s each, on 2 workers.
  EXPECT_DOUBLE_EQ(*estimate.seconds(), 2.5);
  estimate.finished({"b", "r1"}, 9000);
  // 3 of a at 1 s, 1 of b at 9 s: not 4 at the mean of the 2 seen (5 s).
  EXPECT_DOUBLE_EQ(*estimate.seconds(), (3 * 1.0 + 9.0) / 2);
}

TEST(TimeLeft, UnseenScenariosTakeTheMedianOfTheScenarios) {
  TimeLeft estimate({{"a", "r1"}, {"a", "r2"}, {"b", "r1"}, {"c", "r1"}, {"d", "r1"}}, 1);
  estimate.finished({"a", "r1"}, 9000);
  estimate.finished({"b", "r1"}, 1000);
  estimate.finished({"c", "r1"}, 2000);
  // a's last at 9 s; d at the median of 9, 1 and 2 s: 2 s (the mean, 4 s, is a's doing).
  EXPECT_DOUBLE_EQ(*estimate.seconds(), 9.0 + 2.0);
  estimate.finished({"a", "r2"}, 9000);
  // d alone left.
  EXPECT_DOUBLE_EQ(*estimate.seconds(), 2.0);
}

TEST(TimeLeft, OfAnEvenCountOfScenariosTheMiddleTwo) {
  TimeLeft estimate({{"a", "r1"}, {"b", "r1"}, {"c", "r1"}, {"d", "r1"}, {"e", "r1"}}, 1);
  for (const auto& [scenario, ms] :
       {std::pair{"a", 8000.0}, {"b", 1000.0}, {"c", 2000.0}, {"d", 4000.0}}) {
    estimate.finished({scenario, "r1"}, ms);
  }
  EXPECT_DOUBLE_EQ(*estimate.seconds(), 3.0);  // e: (2 + 4) / 2
}

TEST(TimeLeft, TheLastRunsTimesScaledByHowThisRunCompares) {
  const std::map<CellKey, double> last = {
      {{"a", "r1"}, 100}, {{"a", "r2"}, 100}, {{"b", "r1"}, 1000}};
  TimeLeft estimate({{"a", "r1"}, {"a", "r2"}, {"b", "r1"}, {"c", "r1"}}, 2, last);
  estimate.finished({"a", "r1"}, 200);  // twice as slow as last time
  // a × r2 200 ms, b × r1 2 s; c, never run before, as the scenarios seen: a's 200 ms.
  EXPECT_DOUBLE_EQ(*estimate.seconds(), (200 + 2000 + 200) / 2.0 / 1000);
}

TEST(TimeLeft, FewerCasesLeftThanWorkersRunEachOnOne) {
  TimeLeft estimate({{"a", "r1"}, {"a", "r2"}}, 4);
  estimate.finished({"a", "r1"}, 3000);
  EXPECT_DOUBLE_EQ(*estimate.seconds(), 3.0);  // not 3 s / 4
  estimate.finished({"a", "r2"}, 3000);
  EXPECT_DOUBLE_EQ(*estimate.seconds(), 0.0);
}

TEST(TimeLeft, ACellRepeatedCountsEachRepeat) {
  TimeLeft estimate({{"a", "r1"}, {"a", "r1"}, {"a", "r1"}}, 1);
  estimate.finished({"a", "r1"}, 500);
  EXPECT_DOUBLE_EQ(*estimate.seconds(), 1.0);
}

}  // namespace
}  // namespace reapcheck
