#include "harness/model/verdict.h"

#include <gtest/gtest.h>

#include "harness/engine/tree/readiness.h"
#include "harness/model/summary.h"

namespace reapcheck {
namespace {

TEST(Verdict, NamesRoundTrip) {
  for (auto v : {Verdict::pass, Verdict::leak, Verdict::bystander_hit, Verdict::reaper_error,
                 Verdict::reaper_timeout, Verdict::setup_error, Verdict::skipped}) {
    EXPECT_EQ(parse_verdict(to_string(v)), v);
  }
  EXPECT_EQ(to_string(Verdict::bystander_hit), "bystander-hit");
  EXPECT_FALSE(parse_verdict("PASS"));
}

TEST(Verdict, OnlyWhatAReaperEarnsIsAWeakness) {
  EXPECT_TRUE(is_weakness(Verdict::leak));
  EXPECT_TRUE(is_weakness(Verdict::bystander_hit));
  EXPECT_FALSE(is_weakness(Verdict::pass));
  EXPECT_FALSE(is_weakness(Verdict::skipped));
  EXPECT_FALSE(is_weakness(Verdict::setup_error));
}

TEST(Verdict, AKnownBadReaperThatPassesIsNotAsExpected) {
  EXPECT_TRUE(meets_expectation(Verdict::leak, Verdict::leak));
  EXPECT_FALSE(meets_expectation(Verdict::pass, Verdict::leak));
  EXPECT_FALSE(meets_expectation(Verdict::leak, Verdict::pass));
  EXPECT_TRUE(meets_expectation(Verdict::skipped, Verdict::pass));
}

CaseResult make_case(const std::string& s, const std::string& r, Verdict v, Verdict e, int run) {
  CaseResult c;
  c.scenario = s;
  c.reaper = r;
  c.verdict = v;
  c.expected = e;
  c.run = run;
  return c;
}

TEST(Summary, FlagsCellsWhoseRepeatsDisagree) {
  RunResult run;
  run.cases = {make_case("a", "x", Verdict::pass, Verdict::pass, 1),
               make_case("a", "x", Verdict::leak, Verdict::pass, 2),
               make_case("b", "x", Verdict::leak, Verdict::leak, 1),
               make_case("b", "x", Verdict::leak, Verdict::leak, 2)};
  Summary s = summarise(run);
  ASSERT_EQ(s.cells.size(), 2u);
  EXPECT_EQ(s.inconsistent(), 1);
  EXPECT_EQ(s.unexpected(), 0);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(s.find("b", "x")->as_expected());
}

TEST(Summary, UnexpectedPassFailsTheRun) {
  RunResult run;
  run.cases = {make_case("a", "pgroup", Verdict::pass, Verdict::leak, 1)};
  Summary s = summarise(run);
  EXPECT_EQ(s.unexpected(), 1);
  EXPECT_FALSE(s.ok());
}

// A weakness declared with other forms (`also`): any of them is as expected, and repeats that
// give one form, then another, are one outcome; a pass among them is still a failure.
TEST(Summary, AWeaknessWithOtherFormsIsOneOutcome) {
  RunResult run;
  run.cases = {make_case("a", "x", Verdict::leak, Verdict::leak, 1),
               make_case("a", "x", Verdict::late, Verdict::leak, 2),
               make_case("b", "x", Verdict::leak, Verdict::leak, 1),
               make_case("b", "x", Verdict::pass, Verdict::leak, 2),
               make_case("c", "x", Verdict::leak, Verdict::leak, 1),
               make_case("c", "x", Verdict::stray_signal, Verdict::leak, 2)};
  for (auto& c : run.cases) c.expected_also = {Verdict::late};
  EXPECT_TRUE(run.cases[1].as_expected());
  EXPECT_FALSE(run.cases[3].as_expected());
  EXPECT_FALSE(run.cases[5].as_expected());  // not a declared form
  Summary s = summarise(run);
  EXPECT_TRUE(s.find("a", "x")->consistent());
  EXPECT_TRUE(s.find("a", "x")->as_expected());
  EXPECT_FALSE(s.find("b", "x")->consistent());
  EXPECT_FALSE(s.find("c", "x")->consistent());
  EXPECT_EQ(s.inconsistent(), 2);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(expected_text(Verdict::leak, {Verdict::late}), "leak or late");
}

TEST(Readiness, ParsesAnnouncements) {
  auto a = parse_announcement("ready 42 escaped");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->pid, 42);
  EXPECT_EQ(a->role, "escaped");
  EXPECT_FALSE(parse_announcement("ready 42"));
  EXPECT_FALSE(parse_announcement("ready x agent"));
  // A role is held to the scenario files' rule: a newline or control byte is no role.
  EXPECT_FALSE(parse_announcement("ready 42 agent\n"));
  EXPECT_FALSE(parse_announcement(std::string_view("ready 42 a\0b", 12)));  // the NUL inside
  EXPECT_FALSE(parse_announcement("ready 0 agent"));
  EXPECT_FALSE(parse_announcement("ready 4 two words"));
  EXPECT_FALSE(parse_announcement("hello 4 agent"));
}

}  // namespace
}  // namespace reapcheck
