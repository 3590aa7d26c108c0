#include "bench/reap.h"

#include <algorithm>
#include <vector>

#include "harness/engine/run/case_series.h"
#include "harness/sandbox/cgroup_area.h"
#include "harness/support/interrupt.h"

namespace reapcheck {

Scenario bench_scenario(std::string_view shape, int members) {
  std::string text = "description = \"benchmark tree\"\n[tree]\nrole = \"agent\"\n";
  if (members > 1) {
    text +=
        shape == "chain"
            ? "[[tree.children]]\nrole = \"link\"\nchain = " + std::to_string(members - 1) + "\n"
            : "[[tree.children]]\nrole = \"leaf\"\ncopies = " + std::to_string(members - 1) + "\n";
  }
  return parse_scenario(text, std::string(shape) + "-" + std::to_string(members) + ".toml");
}

ReapSample measure_reap(std::string_view reaper, const Scenario& scenario, int runs,
                        CaseOptions options) {
  std::string id(reaper);
  if (reaper == kBareCgroupKill) {
    id = "cgroup";
    options.grace = std::chrono::milliseconds(0);
  }
  // A benchmark tree is one every built-in reaper must kill: the job expects pass.
  const CaseJob job{&scenario, id};
  CgroupArea cgroups;
  options.cgroup_parent = cgroups.path();
  CaseSeries series({&job, 1}, options);
  ReapSample s;
  s.reaper = std::string(reaper);
  s.shape = scenario.id.substr(0, scenario.id.find('-'));
  s.members = scenario.member_count();
  std::vector<double> dead, returned;
  bool all_died = true;
  for (int i = 0; i < runs; ++i) {
    throw_if_interrupted();
    CaseResult c = complete_case(job, series.run(0, i + 1 == runs));
    cgroups.sweep();
    s.verdict = std::string(to_string(c.verdict));
    if (c.all_dead_ms < 0) all_died = false;
    dead.push_back(c.all_dead_ms);
    returned.push_back(c.kill_ms);
    ++s.runs;
  }
  s.ms = all_died ? median(dead) : -1;
  s.reaper_ms = median(returned);
  return s;
}

Overhead measure_case_overhead(int runs, const Layout& layout) {
  const Scenario trivial = bench_scenario("wide", 1);
  const CaseJob job{&trivial, "proc-pidfd"};
  CaseOptions options;
  options.layout = layout;
  CaseSeries series({&job, 1}, options);
  std::vector<double> overhead, whole;
  std::vector<CaseResult> passed;
  for (int i = 0; i < runs; ++i) {
    throw_if_interrupted();
    CaseResult c = complete_case(job, series.run(0, i + 1 == runs));
    if (c.verdict != Verdict::pass) continue;
    overhead.push_back(c.case_ms - c.tree_ms - std::max(c.kill_ms, c.all_dead_ms));
    whole.push_back(c.case_ms);
    passed.push_back(std::move(c));
  }
  return {median(overhead), median(whole), phase_times(passed, PhaseStat::median)};
}

}  // namespace reapcheck
