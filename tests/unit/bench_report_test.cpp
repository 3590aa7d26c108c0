#include <gtest/gtest.h>

#include <pugixml.hpp>

#include "bench/markdown.h"
#include "bench/phases.h"
#include "bench/plot.h"
#include "bench/result.h"

namespace reapcheck {
namespace {

BenchResult sample() {
  BenchResult r;
  r.machine = "2 CPUs";
  r.snapshots = {{100, 80, "bpf-task-iterator", 800, 1500, 8000, 400, 5},
                 {1001, 12000, "proc-files", 12000, 24000, 42000, 5000, 5}};
  for (const auto& [reaper, ms10, ms1000] :
       {std::tuple{"cgroup.kill", 3.0, 150.0}, std::tuple{"cgroup", 5.0, 600.0},
        std::tuple{"proc-pidfd", 4.0, 2400.0}}) {
    r.reap.push_back({reaper, "wide", 10, ms10, ms10, 1, "pass"});
    r.reap.push_back({reaper, "wide", 1000, ms1000, ms1000, 1, "pass"});
  }
  r.reap.push_back({"pgroup", "wide", 1000, -1, 300, 1, "leak"});
  r.reap.push_back({"tini-group", "wide", 100, 12.5, 13, 1, "pass", true});
  r.reap.push_back({"tini-group", "wide", 1000, 140.0, 141, 1, "pass", true});
  r.reap.push_back({"tini", "wide", 1000, -1, 301, 1, "leak", true});
  r.case_overhead_ms = 2.5;
  r.process_costs = {2.25, 3.5, -1};  // no perl
  r.matrix_wall_s = 75;
  r.matrix_wall_no_ledger_s = 60;
  r.ctest_matrix_wall_s = 97.5;
  r.matrix_jobs = 2;
  r.matrix_kill_s = 40;  // 20 s on 2 workers: over the 15 s limit on its own
  r.presets_matrix_wall_s = 512.5;
  r.presets_matrix_kill_s = 60;  // 30 s on 2 workers: under the 45 s limit
  r.presets_matrix_cases = 1116;
  r.leak_excess_ms = CellFigure{140, "setsid-escape × pgroup", 95};
  r.leak_watch_ms = CellFigure{12.5, "npm-dev-server × cmdline"};
  r.reaper_cpu_percent = CellFigure{12, "wide-tree × proc-pidfd"};
  r.case_phases_ms = {{"spawn", 9.5}, {"sandbox", 4.25}};
  r.matrix_phases_ms = {{"spawn", 20}, {"kill", 130.5}, {"sandbox", 16}};
  evaluate_targets(r);
  return r;
}

const TargetCheck& target(const BenchResult& r, std::string_view prefix) {
  for (const auto& t : r.targets) {
    if (t.name.rfind(prefix, 0) == 0) return t;
  }
  throw std::runtime_error("no target " + std::string(prefix));
}

// --smoke's snapshot of 50 processes is no figure at 1,000: the target is not measured, and
// bench.json's "snapshot" (the one at 1,000) is null, not the nearest of another order.
TEST(BenchTargets, ASnapshotOfAnotherOrderIsNoFigureAtAThousand) {
  BenchResult r;
  r.smoke = true;
  r.snapshots = {{52, 40, "proc-files", 40, 80, 4000, 20, 2}};
  evaluate_targets(r);
  EXPECT_FALSE(target(r, "process-table snapshot").measured);
  EXPECT_EQ(r.snapshot_at(50), &r.snapshots[0]);
  const nlohmann::json j = r;
  EXPECT_TRUE(j["snapshot"].is_null());
  EXPECT_EQ(j["snapshots"].size(), 1u);
  EXPECT_TRUE(j["smoke"].get<bool>());
  EXPECT_EQ(bench_markdown(r).rfind("# reapcheck bench (--smoke)\n", 0), 0u);
}

TEST(BenchTargets, RatiosComeFromTheSamplesOfTheSameRun) {
  const BenchResult r = sample();
  ASSERT_EQ(r.targets.size(), 10u);
  // The snapshot nearest 1,000 processes: 42,000 / 12,000.
  EXPECT_DOUBLE_EQ(*target(r, "process-table snapshot").measured, 3.5);
  EXPECT_FALSE(target(r, "process-table snapshot").met());
  EXPECT_DOUBLE_EQ(*target(r, "cgroup against").measured, 4.0);  // 600 / 150
  EXPECT_FALSE(target(r, "cgroup against").met());
  EXPECT_DOUBLE_EQ(*target(r, "proc-pidfd against").measured, 4.0);  // 2400 / 600
  EXPECT_TRUE(target(r, "proc-pidfd against").met());
  EXPECT_TRUE(target(r, "harness overhead").met());
  EXPECT_FALSE(target(r, "built-in matrix").met());
  EXPECT_DOUBLE_EQ(*target(r, "the signal ledger's cost").measured, 25.0);  // 75 / 60 - 1
  EXPECT_FALSE(target(r, "the signal ledger's cost").met());
  EXPECT_FALSE(target(r, "--presets matrix").met());              // 512.5 s against 45
  EXPECT_DOUBLE_EQ(*target(r, "ctest -L matrix").measured, 1.3);  // 97.5 / 75
  EXPECT_FALSE(target(r, "ctest -L matrix").met());               // 1.2 at most
}

TEST(BenchTargets, CellTargetsNameTheirWorstCell) {
  const BenchResult r = sample();
  const TargetCheck& leak = target(r, "a leaking cell's wall time");
  EXPECT_NE(leak.name.find("(worst: setsid-escape × pgroup)"), std::string::npos);
  EXPECT_DOUBLE_EQ(*leak.measured, 140);
  EXPECT_FALSE(leak.met());                                  // 100 ms at most
  EXPECT_TRUE(target(r, "a case's reaper CPU time").met());  // 12 % of 20
}

TEST(BenchTargets, AMatrixFloorIsItsReapersKillPhasesOverItsWorkers) {
  const BenchResult r = sample();
  const TargetCheck& builtin = target(r, "built-in matrix");
  ASSERT_TRUE(builtin.floor);
  EXPECT_DOUBLE_EQ(*builtin.floor, 20);  // 40 s of kill phases on 2 workers
  EXPECT_NE(builtin.floor_what.find("over 2 workers"), std::string::npos);
  EXPECT_DOUBLE_EQ(*target(r, "--presets matrix").floor, 30);
  EXPECT_DOUBLE_EQ(*target(r, "a leaking cell's wall time").floor, 95);
  // No floor where nothing measured it, nor for targets that have none.
  BenchResult unmeasured = sample();
  unmeasured.matrix_kill_s.reset();
  unmeasured.leak_excess_ms->floor = -1;
  evaluate_targets(unmeasured);
  EXPECT_FALSE(target(unmeasured, "built-in matrix").floor);
  EXPECT_FALSE(target(unmeasured, "a leaking cell's wall time").floor);
  EXPECT_FALSE(target(r, "harness overhead").floor);
  const nlohmann::json j = r;
  EXPECT_DOUBLE_EQ(j["matrix_kill_s"].get<double>(), 40);
  for (const auto& t : j["targets"]) {
    if (t["target"] == "built-in matrix wall time") {
      EXPECT_DOUBLE_EQ(t["floor"].get<double>(), 20);
    }
    if (t["target"] == "harness overhead per case") {
      EXPECT_TRUE(t["floor"].is_null());
    }
  }
}

TEST(BenchMarkdown, SaysWhatOfAMissIsNotTheHarnesss) {
  const std::string md = bench_markdown(sample());
  EXPECT_NE(md.find("| 75.0 s | missed by 60.0 s; the reapers' kill phases alone (run without the "
                    "ledger), over 2 workers: 20.0 s, over the limit on its own |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| 512.5 s | missed by 467.5 s; the reapers' kill phases (the ledger's share "
                    "in them), over 2 workers: 30.0 s |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("missed by 40.0 ms; its tree's start before the kill (spawn and tree "
                    "phases): 95.0 ms |"),
            std::string::npos)
      << md;
}

TEST(BenchCellFigures, TheWorstJudgedCellOfEachKind) {
  RunResult run;
  auto add = [&](const char* scenario, Verdict v, double case_ms, double kill_ms, double cpu_ms) {
    CaseResult c;
    c.scenario = scenario;
    c.reaper = "pgroup";
    c.verdict = v;
    c.case_ms = case_ms;
    c.kill_ms = kill_ms;
    c.reaper_cpu_ms = cpu_ms;
    run.cases.push_back(c);
  };
  add("a", Verdict::leak, 420, 300, 1);
  add("b", Verdict::leak, 500, 310, 2);
  run.cases.back().phases_ms = {{"spawn", 60}, {"tree", 25.5}, {"kill", 310}, {"audit", 4}};
  add("c", Verdict::pass, 2000, 10, 300);  // no leak: its wall time is not a leak's
  add("d", Verdict::pass, 100, 5, 5);
  run.cases.back().blocked = Blocker{Blocker::Kind::setup_failed, "never ran"};
  const auto leak = worst_leak_excess(run);
  ASSERT_TRUE(leak);
  EXPECT_DOUBLE_EQ(leak->value, 190);
  EXPECT_EQ(leak->cell, "b × pgroup");
  EXPECT_DOUBLE_EQ(leak->floor, 85.5);  // its spawn and tree phases
  run.cases[0].watched_ms = 30;
  run.cases[1].watched_ms = 2;
  run.cases[2].watched_ms = 900;  // no leak: its watch is not a leak's
  const auto watch = worst_leak_watch(run);
  ASSERT_TRUE(watch);
  EXPECT_DOUBLE_EQ(watch->value, 30);
  EXPECT_EQ(watch->cell, "a × pgroup");
  const auto cpu = worst_reaper_cpu_share(run);
  ASSERT_TRUE(cpu);
  EXPECT_DOUBLE_EQ(cpu->value, 15);  // c: 300 of 2000 ms; d never ran
  EXPECT_FALSE(worst_leak_excess(RunResult{}));
}

TEST(BenchPhases, MeanForAMatrixMedianForRepeatsBlockedCasesLeftOut) {
  auto with = [](std::vector<std::pair<std::string, double>> phases) {
    CaseResult c;
    c.phases_ms = std::move(phases);
    return c;
  };
  std::vector<CaseResult> cases = {
      with({{"spawn", 10}, {"kill", 300}}), with({{"spawn", 20}, {"kill", 3}}),
      with({{"spawn", 90}, {"kill", 6}, {"audit", 1000}}), with({{"spawn", 5000}})};
  cases.back().blocked = Blocker{Blocker::Kind::setup_failed, "never ran"};
  const auto mean = phase_times(cases, PhaseStat::mean);
  ASSERT_EQ(mean.size(), 3u);
  EXPECT_EQ(mean[0].phase, "spawn");
  EXPECT_DOUBLE_EQ(mean[0].ms, 40);  // (10 + 20 + 90) / 3: the blocked case is not counted
  EXPECT_EQ(mean[1].phase, "kill");
  EXPECT_DOUBLE_EQ(mean[1].ms, 103);
  EXPECT_EQ(mean[2].phase, "audit");  // recorded by one case only: its mean over that one
  EXPECT_DOUBLE_EQ(mean[2].ms, 1000);
  const auto median = phase_times(cases, PhaseStat::median);
  EXPECT_DOUBLE_EQ(median[0].ms, 20);
  EXPECT_DOUBLE_EQ(median[1].ms, 6);
  EXPECT_TRUE(phase_times({}, PhaseStat::mean).empty());
  EXPECT_DOUBLE_EQ(phases_total_ms(cases, {"kill"}), 309);  // the blocked case recorded none
  EXPECT_DOUBLE_EQ(phases_total_ms(cases, {"spawn", "audit"}), 6120);
  EXPECT_DOUBLE_EQ(phases_ms(cases[2], {"audit", "tree"}), 1000);  // no tree phase: 0
}

TEST(BenchTargets, UnmeasuredIsNeitherMetNorMissed) {
  BenchResult r = sample();
  r.matrix_wall_s.reset();
  r.reap.clear();
  r.ctest_matrix_wall_s.reset();
  r.ctest_matrix_not_measured = "not run from a build tree";
  evaluate_targets(r);
  EXPECT_FALSE(target(r, "built-in matrix").measured);
  EXPECT_FALSE(target(r, "ctest -L matrix").measured);
  EXPECT_NE(bench_markdown(r).find("not measured: not run from a build tree"), std::string::npos);
  EXPECT_FALSE(target(r, "cgroup against").measured);
  const nlohmann::json j = r;
  EXPECT_TRUE(j["matrix_wall_s"].is_null());
  for (const auto& t : j["targets"]) {
    if (t["target"] == "built-in matrix wall time") {
      EXPECT_TRUE(t["met"].is_null());
    }
  }
}

TEST(BenchJson, HoldsTheFieldsTheIssueNames) {
  const nlohmann::json j = sample();
  for (const char* k : {"processes", "proc_us", "ps_us"}) EXPECT_TRUE(j["snapshot"].contains(k));
  EXPECT_EQ(j["snapshot"]["processes"], 1001);
  for (const char* k : {"reaper", "shape", "members", "ms"}) EXPECT_TRUE(j["reap"][0].contains(k));
  EXPECT_TRUE(j["reap"][6]["ms"].is_null());  // the leak never reached all-dead
  EXPECT_TRUE(j["reap"].back()["preset"].get<bool>());
  EXPECT_DOUBLE_EQ(j["presets_matrix_wall_s"].get<double>(), 512.5);
  EXPECT_EQ(j["presets_matrix_cases"], 1116);
  EXPECT_DOUBLE_EQ(j["case_overhead_ms"].get<double>(), 2.5);
  EXPECT_EQ(j["leak_excess_ms"]["cell"], "setsid-escape × pgroup");
  EXPECT_DOUBLE_EQ(j["matrix_wall_s"].get<double>(), 75);
}

TEST(BenchMarkdown, SaysWhatStartingAProcessCostsHere) {
  const std::string md = bench_markdown(sample());
  EXPECT_NE(md.find("`perl -e 0` | 2.25 ms; 3.50 ms; — |"), std::string::npos) << md;
  const nlohmann::json j = sample();
  EXPECT_DOUBLE_EQ(j["process_costs"]["fork_ms"].get<double>(), 2.25);
  EXPECT_DOUBLE_EQ(j["process_costs"]["spawn_ms"].get<double>(), 3.5);
  EXPECT_DOUBLE_EQ(j["process_costs"]["perl_ms"].get<double>(), -1);
}

TEST(BenchMarkdown, ShowsWhereACasesTimeGoesSideBySide) {
  const std::string md = bench_markdown(sample());
  EXPECT_NE(md.find("## Where a case's time goes"), std::string::npos) << md;
  EXPECT_NE(md.find("| spawn | 9.5 | 20.0 | the fixture's start"), std::string::npos) << md;
  EXPECT_NE(md.find("| sandbox | 4.2 | 16.0 | the harness"), std::string::npos) << md;
  EXPECT_NE(md.find("| kill | — | 130.5 | the reaper"), std::string::npos) << md;
  const nlohmann::json j = sample();
  EXPECT_EQ(j["case_phases_ms"][0][0], "spawn");
  EXPECT_EQ(j["leak_watch_ms"]["cell"], "npm-dev-server × cmdline");
  EXPECT_NE(md.find("| A leaking cell's watch after its reaper returned (the settle; worst cell) | "
                    "12.5 ms (npm-dev-server × cmdline) |"),
            std::string::npos)
      << md;
  EXPECT_DOUBLE_EQ(j["matrix_phases_ms"][1][1].get<double>(), 130.5);
  BenchResult none = sample();
  none.case_phases_ms.clear();
  none.matrix_phases_ms.clear();
  EXPECT_EQ(bench_markdown(none).find("Where a case's time goes"), std::string::npos);
}

TEST(BenchMarkdown, SaysByHowMuchEachTargetIsMissed) {
  const std::string md = bench_markdown(sample());
  EXPECT_NE(
      md.find("| process-table snapshot cheaper than ps at 1,000 processes | ≥ 20.0× | 3.5× | "
              "missed: 5.7× short |"),
      std::string::npos)
      << md;
  EXPECT_NE(md.find("| 4.0× | missed: 1.3× over |"), std::string::npos) << md;
  EXPECT_NE(md.find("missed by 60.0 s"), std::string::npos) << md;
  EXPECT_NE(md.find("never (leak)"), std::string::npos) << md;
}

TEST(BenchMarkdown, PresetsHaveTheirOwnTablesAndTheirMatrixIsTimed) {
  const std::string md = bench_markdown(sample());
  EXPECT_NE(md.find("## Presets — Reap latency: kill request until every member is dead (median "
                    "ms)\n\n| Reaper | wide 100 | wide 1000 |\n|---|---|---|\n| tini-group | 12.5 "
                    "| 140.0 |\n| tini |  | never (leak) |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| `run --presets` matrix (the built-ins and every preset) | 512.5 s for 1116 "
                    "cases on 2 workers (0 unexpected) |"),
            std::string::npos)
      << md;
  // The built-ins' table has no preset row.
  EXPECT_EQ(md.find("| tini-group | 12.5 |"), md.rfind("| tini-group | 12.5 |"));
}

TEST(BenchPlot, OneLinePerReaperThatKilledEveryMember) {
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(bench_plot_svg(sample()).c_str()));
  const auto lines = doc.child("svg").children("polyline");
  // pgroup leaked: no point to plot; the presets are in their own table, not the plot.
  EXPECT_EQ(std::distance(lines.begin(), lines.end()), 3);
  const std::string text = bench_plot_svg(sample());
  for (const char* reaper : {"cgroup.kill", "cgroup", "proc-pidfd"}) {
    EXPECT_NE(text.find(std::string(">") + reaper + "</text>"), std::string::npos) << reaper;
  }
}

}  // namespace
}  // namespace reapcheck
