// run --write-expectations: the draft declares what the run saw, keeps the reasons already
// written, leaves the others empty (which reading refuses), and reads back as written.
#include "harness/model/expectations_draft.h"

#include <gtest/gtest.h>

#include "harness/model/toml_reader.h"

namespace reapcheck {
namespace {

const std::vector<std::string> kScenarios = {"setsid-escape", "pid-reuse", "plain-child",
                                             "fork-storm"};

CaseResult seen(const std::string& scenario, Verdict verdict, int run = 1) {
  CaseResult c;
  c.scenario = scenario;
  c.reaper = "walk=exec:./walk {pid}";
  c.verdict = verdict;
  c.run = run;
  return c;
}

TEST(ExpectationsDraft, DeclaresWhatTheRunSawAndKeepsWrittenReasons) {
  RunResult run;
  run.cases = {seen("setsid-escape", Verdict::leak), seen("pid-reuse", Verdict::stray_signal),
               seen("pid-reuse", Verdict::leak, 2), seen("plain-child", Verdict::pass),
               seen("fork-storm", Verdict::setup_error)};
  ReaperExpectations earlier;
  earlier.reaper = "walk";
  earlier.known["setsid-escape"] = {Verdict::leak, "a ps walk misses \"setsid\"", {}, {}};
  const ExpectationsDraft draft = draft_expectations(run, run.cases.front().reaper, &earlier);
  EXPECT_EQ(draft.declared, 2);
  EXPECT_EQ(draft.to_explain, 1);
  EXPECT_NE(draft.undeclared.find("fork-storm"), std::string::npos) << draft.undeclared;
  // Read back, the empty reason is refused; once written, it declares what the run saw.
  EXPECT_THROW(parse_expectations(draft.text, "walk.toml", kScenarios, {"walk"}), InputError);
  std::string filled = draft.text;
  filled.replace(filled.find("reason = \"\""), 11, "reason = \"a pid recycled\"");
  const ReaperExpectations back = parse_expectations(filled, "x.toml", kScenarios, {"walk"});
  EXPECT_EQ(back.reaper, "walk");
  EXPECT_EQ(back.known.at("setsid-escape").reason, "a ps walk misses \"setsid\"");
  // Repeats that disagree: the commonest (first on a tie) the verdict, the other its `also`.
  const Expectation& race = back.known.at("pid-reuse");
  EXPECT_EQ(race.reason, "a pid recycled");
  EXPECT_EQ(race.verdict, Verdict::leak);
  EXPECT_EQ(race.also, std::vector<Verdict>{Verdict::stray_signal});
  EXPECT_EQ(back.known.count("plain-child"), 0u);
  EXPECT_EQ(back.known.count("fork-storm"), 0u);
}

}  // namespace
}  // namespace reapcheck
