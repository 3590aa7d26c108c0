// The plan of a run: which jobs a shard holds and in what order, the order a pool starts them in,
// and the plan order results are reported in whatever order they finished.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "harness/engine/run/dispatch_order.h"
#include "harness/engine/run/matrix.h"
#include "harness/model/merge.h"
#include "harness/model/scenario.h"

namespace reapcheck {
namespace {

// A scenario `id` whose agent has `children` children.
Scenario scenario(const std::string& id, int children = 0) {
  std::string text = "description = \"d\"\n[tree]\nrole = \"agent\"\n";
  for (int i = 0; i < children; ++i) {
    text += "[[tree.children]]\nrole = \"c" + std::to_string(i) + "\"\n";
  }
  return parse_scenario(text, "scenarios/" + id + ".toml");
}

// The plan the CLI's sharding test ran: three scenarios × two reapers.
MatrixPlan three_by_two() {
  MatrixPlan plan;
  plan.scenarios = {scenario("plain-child"), scenario("setsid-escape"), scenario("setpgid-escape")};
  plan.reapers = {"pgroup", "proc-pidfd"};
  return plan;
}

// A case as "scenario/reaper#run", from its job or its result.
std::string cell(const CaseJob& j) {
  return j.scenario->id + "/" + j.reaper + "#" + std::to_string(j.run);
}
std::string cell(const CaseResult& c) {
  return c.scenario + "/" + c.reaper + "#" + std::to_string(c.run);
}

template <typename Case>
std::vector<std::string> cells(const std::vector<Case>& cases) {
  std::vector<std::string> out;
  out.reserve(cases.size());
  for (const auto& c : cases) out.push_back(cell(c));
  return out;
}

// The result a run of `jobs` in `plan` would report: pgroup leaks the escapes, the rest passes.
RunResult slice_result(const MatrixPlan& plan, const std::vector<CaseJob>& jobs) {
  RunResult r;
  r.repeat = plan.repeat;
  r.info.shard = plan.shard.count > 1 ? plan.shard.text() : "";
  for (const auto& s : plan.scenarios) r.info.plan_scenarios.push_back(s.id);
  r.info.plan_reapers = plan.reapers;
  for (const auto& j : jobs) {
    CaseResult c;
    c.scenario = j.scenario->id;
    c.reaper = j.reaper;
    c.run = j.run;
    c.verdict =
        j.reaper == "pgroup" && j.scenario->id != "plain-child" ? Verdict::leak : Verdict::pass;
    r.cases.push_back(c);
  }
  return r;
}

TEST(Plan, IsScenarioMajorWithRepeatsOutermost) {
  MatrixPlan plan = three_by_two();
  plan.repeat = 2;
  const auto jobs = matrix_jobs(plan);
  ASSERT_EQ(jobs.size(), 12u);
  EXPECT_EQ(cells(jobs)[0], "plain-child/pgroup#1");
  EXPECT_EQ(cells(jobs)[1], "plain-child/proc-pidfd#1");
  EXPECT_EQ(cells(jobs)[2], "setsid-escape/pgroup#1");
  EXPECT_EQ(cells(jobs)[5], "setpgid-escape/proc-pidfd#1");
  EXPECT_EQ(cells(jobs)[6], "plain-child/pgroup#2") << "a run stopped early has every cell once";
}

TEST(Plan, ThreeSlicesOfTwoMergedGiveTheWholeRunsCellsInOrder) {
  MatrixPlan plan = three_by_two();
  const RunResult whole = slice_result(plan, matrix_jobs(plan));
  std::vector<RunResult> slices;
  for (int k = 1; k <= 3; ++k) {
    plan.shard = Shard{k, 3};
    const auto jobs = matrix_jobs(plan);
    EXPECT_EQ(jobs.size(), 2u) << "slice " << k;
    slices.push_back(slice_result(plan, jobs));
  }
  const Merged m = merge_runs(slices, {"shard1.json", "shard2.json", "shard3.json"});
  EXPECT_TRUE(m.missing.empty());
  EXPECT_EQ(cells(m.run.cases), cells(whole.cases));
  for (size_t i = 0; i < whole.cases.size(); ++i) {
    EXPECT_EQ(m.run.cases[i].verdict, whole.cases[i].verdict) << cells(whole.cases)[i];
  }
}

TEST(Plan, EveryRepeatOfACellRunsInTheSameSlice) {
  MatrixPlan plan = three_by_two();
  plan.repeat = 3;
  for (int k = 1; k <= 4; ++k) {
    plan.shard = Shard{k, 4};
    std::map<std::string, int> repeats;
    for (const auto& j : matrix_jobs(plan)) ++repeats[j.scenario->id + "/" + j.reaper];
    for (const auto& [cell, n] : repeats) EXPECT_EQ(n, 3) << cell << " in slice " << k;
  }
}

TEST(DispatchOrder, StartsTheLargestTreesFirstAndTiesInPlanOrder) {
  MatrixPlan plan;
  plan.scenarios = {scenario("small"), scenario("wide", 5), scenario("medium", 2)};
  plan.reapers = {"pgroup", "cgroup"};
  const auto jobs = matrix_jobs(plan);
  std::vector<std::string> started;
  for (size_t i : dispatch_order(jobs)) started.push_back(cells(jobs)[i]);
  EXPECT_EQ(started,
            (std::vector<std::string>{"wide/pgroup#1", "wide/cgroup#1", "medium/pgroup#1",
                                      "medium/cgroup#1", "small/pgroup#1", "small/cgroup#1"}));
}

// A parallel run: the cases finish in the order they were started (the largest first), and are
// reported in plan order.
TEST(PlanOrder, CasesFinishedInAnyOrderAreReportedInPlanOrder) {
  MatrixPlan plan;
  plan.scenarios = {scenario("plain-child"), scenario("grandchildren", 2)};
  plan.reapers = {"pgroup", "cgroup"};
  const auto jobs = matrix_jobs(plan);
  std::vector<CaseResult> finished;
  std::vector<size_t> plan_index;
  for (size_t i : dispatch_order(jobs)) {
    plan_index.push_back(i);
    finished.push_back(slice_result(plan, {jobs[i]}).cases.front());
  }
  ASSERT_NE(cells(finished), cells(jobs)) << "the test needs cases finished out of plan order";
  sort_in_plan_order(finished, plan_index);
  EXPECT_EQ(cells(finished),
            (std::vector<std::string>{"plain-child/pgroup#1", "plain-child/cgroup#1",
                                      "grandchildren/pgroup#1", "grandchildren/cgroup#1"}));
}

TEST(PlanOrder, AnInterruptedRunKeepsItsFinishedCasesInPlanOrder) {
  MatrixPlan plan = three_by_two();
  const auto jobs = matrix_jobs(plan);
  std::vector<CaseResult> finished = {slice_result(plan, {jobs[4]}).cases.front(),
                                      slice_result(plan, {jobs[1]}).cases.front()};
  sort_in_plan_order(finished, {4, 1});
  EXPECT_EQ(cells(finished),
            (std::vector<std::string>{"plain-child/proc-pidfd#1", "setpgid-escape/pgroup#1"}));
}

}  // namespace
}  // namespace reapcheck
