#include <gtest/gtest.h>

#include <set>

#include "harness/model/merge.h"
#include "harness/model/shard.h"
#include "harness/model/summary.h"

namespace reapcheck {
namespace {

TEST(Shard, ParsesKOfNAndRefusesTheRest) {
  const auto s = parse_shard("2/3");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->index, 2);
  EXPECT_EQ(s->count, 3);
  EXPECT_EQ(s->text(), "2/3");
  for (const char* bad : {"", "3", "0/3", "4/3", "1/0", "a/3", "1/3x", "/3", "2/"}) {
    EXPECT_FALSE(parse_shard(bad)) << bad;
  }
}

TEST(Shard, TheSlicesCoverEveryCellOnce) {
  std::multiset<size_t> seen;
  for (int k = 1; k <= 3; ++k) {
    for (size_t cell = 0; cell < 20; ++cell) {
      if (Shard{k, 3}.holds(cell)) seen.insert(cell);
    }
  }
  EXPECT_EQ(seen.size(), 20u);
  for (size_t cell = 0; cell < 20; ++cell) EXPECT_EQ(seen.count(cell), 1u) << cell;
}

RunResult slice(const std::string& shard,
                const std::vector<std::pair<std::string, std::string>>& cells) {
  RunResult r;
  r.info.plan_scenarios = {"a", "b"};
  r.info.plan_reapers = {"x", "y"};
  r.info.shard = shard;
  for (auto& [scenario, reaper] : cells) {
    CaseResult c;
    c.scenario = scenario;
    c.reaper = reaper;
    c.verdict = Verdict::pass;
    r.cases.push_back(c);
  }
  return r;
}

TEST(Merge, PutsTheSlicesBackInPlanOrderAndNamesMissingCells) {
  const Merged m = merge_runs({slice("2/2", {{"a", "y"}, {"b", "y"}}), slice("1/2", {{"a", "x"}})},
                              {"two.json", "one.json"});
  std::vector<std::string> order;
  for (const auto& c : m.run.cases) order.push_back(c.scenario + "/" + c.reaper);
  EXPECT_EQ(order, (std::vector<std::string>{"a/x", "a/y", "b/y"}));
  EXPECT_EQ(m.missing, std::vector<std::string>{"b × x"});
  EXPECT_EQ(m.run.info.shard, "merged from 2/2, 1/2");
}

TEST(Merge, RefusesACaseTwiceAndSlicesOfAnotherRun) {
  EXPECT_THROW(merge_runs({slice("1/2", {{"a", "x"}}), slice("1/2", {{"a", "x"}})}, {"p", "q"}),
               std::runtime_error);
  RunResult other = slice("2/2", {{"b", "y"}});
  other.grace_ms = 5000;
  EXPECT_THROW(merge_runs({slice("1/2", {{"a", "x"}}), other}, {"p", "q"}), std::runtime_error);
}

RunResult whole_run(const std::string& started, int repeat, Verdict verdict) {
  RunResult r = slice("", {});
  r.info.started = started;
  r.repeat = repeat;
  r.wall_s = 10;
  for (int run = 1; run <= repeat; ++run) {
    CaseResult c;
    c.scenario = "a";
    c.reaper = "x";
    c.run = run;
    c.verdict = verdict;
    r.cases.push_back(c);
  }
  return r;
}

TEST(Merge, JoinsWholeRunsAsRepeatsNumberedOneAfterAnother) {
  const Merged m = merge_runs({whole_run("2026-12-01T10:00:00", 2, Verdict::pass),
                               whole_run("2026-12-02T10:00:00", 3, Verdict::pass)},
                              {"monday.json", "tuesday.json"});
  EXPECT_EQ(m.run.repeat, 5);
  EXPECT_DOUBLE_EQ(m.run.wall_s, 20);
  std::vector<int> runs;
  for (const auto& c : m.run.cases) runs.push_back(c.run);
  EXPECT_EQ(runs, (std::vector<int>{1, 2, 3, 4, 5}));
  EXPECT_EQ(m.run.info.shard, "merged from monday.json (2×), tuesday.json (3×)");
  EXPECT_TRUE(summarise(m.run).ok());
}

TEST(Merge, AVerdictThatChangedBetweenWholeRunsIsInconsistent) {
  const Merged m = merge_runs({whole_run("2026-12-01T10:00:00", 1, Verdict::pass),
                               whole_run("2026-12-02T10:00:00", 1, Verdict::leak)},
                              {"p", "q"});
  EXPECT_EQ(summarise(m.run).inconsistent(), 1);
  EXPECT_FALSE(summarise(m.run).ok());
}

TEST(Merge, RefusesTheSameWholeRunTwiceAndWholeRunsWithSlices) {
  const RunResult monday = whole_run("2026-12-01T10:00:00", 1, Verdict::pass);
  EXPECT_THROW(merge_runs({monday, monday}, {"p", "q"}), std::runtime_error);
  EXPECT_THROW(merge_runs({monday, slice("1/2", {{"a", "x"}})}, {"p", "q"}), std::runtime_error);
  RunResult other = whole_run("2026-12-02T10:00:00", 1, Verdict::pass);
  other.grace_ms = 5000;
  EXPECT_THROW(merge_runs({monday, other}, {"p", "q"}), std::runtime_error);
}

// What `report --merge` says when it refuses: the input, and why.
std::string refusal(const std::vector<RunResult>& runs, const std::vector<std::string>& names) {
  try {
    merge_runs(runs, names);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(merged)";
}

TEST(Merge, ARefusalNamesTheInputAndWhy) {
  const RunResult shard1 = slice("1/2", {{"a", "x"}});
  EXPECT_EQ(refusal({shard1, shard1}, {"shard1.json", "shard1.json"}),
            "shard1.json: a × x (run 1) is in another slice too");
  const RunResult whole = whole_run("2026-12-01T10:00:00", 1, Verdict::pass);
  EXPECT_EQ(refusal({whole, whole}, {"whole.json", "whole.json"}),
            "whole.json: the same run as an earlier input (started 2026-12-01T10:00:00, 10.0 s)");
  EXPECT_NE(refusal({whole, shard1}, {"whole.json", "shard1.json"})
                .find("a whole run, merged with slices of a sharded one"),
            std::string::npos);
}

}  // namespace
}  // namespace reapcheck
