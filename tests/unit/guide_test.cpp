#include "harness/model/guide.h"

#include <gtest/gtest.h>

#include "reports/reapers_guide.h"

namespace reapcheck {
namespace {

const std::vector<std::string> kScenarios = {"plain-child", "setsid-escape"};

// pgroup leaks setsid-escape, as declared; `fresh` is in the catalogue, not in the kept run.
ExpectationBook book() {
  ExpectationBook b;
  b.add(parse_expectations(R"([[known]]
verdict = "leak"
reason = "killpg reaches only the agent's group"
scenarios = ["setsid-escape"]
)",
                           "exp/pgroup.toml", kScenarios, {"pgroup", "fresh"}));
  return b;
}

std::vector<GuideReaper> reapers() {
  return {{"pgroup", true, false, "killpg", "nothing", {}},
          {"fresh", true, false, "something new", "nothing", {}}};
}

GuideRun run(Verdict setsid_escape) {
  return {"reapcheck run --presets",
          1,
          2.0,
          2,
          "a machine",
          {{"plain-child", "pgroup", Verdict::pass, {}, "", std::nullopt},
           {"setsid-escape", "pgroup", setsid_escape, {}, "", std::nullopt}}};
}

TEST(Guide, AReaperTheRunDoesNotHoldIsNotYetMeasuredAndNoFault) {
  const ExpectationBook b = book();
  const Guide g(reapers(), kScenarios, b, {}, run(Verdict::leak), GuideBench{});
  EXPECT_TRUE(g.stale_cells().empty());
  EXPECT_TRUE(g.measured("pgroup"));
  EXPECT_FALSE(g.measured("fresh"));
  const std::string md = reapers_guide_markdown(g);
  EXPECT_NE(md.find("| [fresh](#fresh) | built-in | not yet measured |"), std::string::npos) << md;
  EXPECT_NE(md.find("- **not yet measured**: the kept run has none of its cells"),
            std::string::npos);
  // Never chosen while unmeasured, however few weaknesses it declares.
  for (const auto& rec : g.recommendations()) {
    EXPECT_EQ(std::count(rec.chosen.begin(), rec.chosen.end(), "fresh"), 0);
  }
}

TEST(Guide, AChangedVerdictOfAMeasuredReaperIsAFault) {
  const ExpectationBook b = book();
  const Guide passed(reapers(), kScenarios, b, {}, run(Verdict::pass), GuideBench{});
  ASSERT_EQ(passed.stale_cells().size(), 1U);
  EXPECT_EQ(passed.stale_cells().front(),
            "setsid-escape × pgroup: the run saw pass, leak is declared");
  const Guide hit(reapers(), kScenarios, b, {}, run(Verdict::bystander_hit), GuideBench{});
  EXPECT_EQ(hit.stale_cells().size(), 1U);
}

TEST(Guide, RecommendsTheMeasuredReapersFailingFewest) {
  const ExpectationBook b = book();
  GuideRun both = run(Verdict::leak);
  both.cells.push_back({"plain-child", "fresh", Verdict::pass, {}, "", std::nullopt});
  both.cells.push_back({"setsid-escape", "fresh", Verdict::pass, {}, "", std::nullopt});
  const Guide g(reapers(), kScenarios, b, {}, std::move(both), GuideBench{});
  const auto recs = g.recommendations();
  ASSERT_EQ(recs.size(), 1U);
  EXPECT_EQ(recs.front().chosen, std::vector<std::string>{"fresh"});
  EXPECT_EQ(recs.front().others, std::vector<std::string>{"pgroup"});
  EXPECT_EQ(g.fails("pgroup"), std::vector<std::string>{"setsid-escape"});
  EXPECT_EQ(g.passes("fresh"), 2);
}

}  // namespace
}  // namespace reapcheck
