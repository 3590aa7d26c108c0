#include "bench/result.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace reapcheck {
namespace {

// The tree size the cost ratios are read at: the snapshot size, and a tree large
// enough that per-member work dominates the fixed cost of a kill.
constexpr int kRatioMembers = 1000;

std::optional<double> ratio(std::optional<double> num, std::optional<double> den) {
  if (!num || !den || *den <= 0) return std::nullopt;
  return *num / *den;
}

std::optional<double> reap_ms(const BenchResult& r, std::string_view reaper) {
  const ReapSample* s = r.sample(reaper, "wide", kRatioMembers);
  if (s == nullptr || s->ms < 0) return std::nullopt;
  return s->ms;
}

// An "at most" target on the worst cell of a matrix run, which its name then says.
TargetCheck cell_target(const std::string& name, double limit,
                        const std::optional<CellFigure>& worst, const char* unit) {
  if (!worst) return {name, "at most", limit, std::nullopt, unit};
  return {name + " (worst: " + worst->cell + ")", "at most", limit, worst->value, unit};
}

// A matrix's wall-time target, with the floor its reapers' kill phases (`kill_what`) set on
// `jobs` workers.
TargetCheck matrix_target(const std::string& name, double limit, std::optional<double> wall_s,
                          std::optional<double> kill_s, std::string_view kill_what, int jobs) {
  TargetCheck t{name, "at most", limit, wall_s, "s"};
  if (wall_s && kill_s && jobs > 0) {
    t.floor = *kill_s / jobs;
    t.floor_what = fmt::format("{}, over {} workers", kill_what, jobs);
  }
  return t;
}

}  // namespace

double median(std::vector<double> values) {
  if (values.empty()) return -1;
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

bool TargetCheck::met() const {
  if (!measured) return false;
  return relation == "at least" ? *measured >= limit : *measured <= limit;
}

const SnapshotCost* BenchResult::snapshot_at(int processes) const {
  // The sandbox's own PID 1 and the snapshot's children count too: take the nearest, but not a
  // count of another order (--smoke's 50 is no figure at 1,000).
  const SnapshotCost* best = nullptr;
  for (const auto& s : snapshots) {
    if (best == nullptr ||
        std::abs(s.processes - processes) < std::abs(best->processes - processes))
      best = &s;
  }
  return best != nullptr && std::abs(best->processes - processes) * 20 <= processes ? best
                                                                                    : nullptr;
}

const ReapSample* BenchResult::sample(std::string_view reaper_id, std::string_view shape,
                                      int members) const {
  for (const auto& s : reap) {
    if (s.reaper == reaper_id && s.shape == shape && s.members == members) return &s;
  }
  return nullptr;
}

void evaluate_targets(BenchResult& r) {
  r.targets.clear();
  std::optional<double> snapshot;
  if (const SnapshotCost* s = r.snapshot_at(1000); s != nullptr && s->proc_us > 0) {
    snapshot = s->ps_us / s->proc_us;
  }
  r.targets.push_back(
      {"process-table snapshot cheaper than ps at 1,000 processes", "at least", 20, snapshot, "×"});
  r.targets.push_back({"cgroup against a bare cgroup.kill and wait (1,000-member tree)", "at most",
                       3, ratio(reap_ms(r, "cgroup"), reap_ms(r, "cgroup.kill")), "×"});
  r.targets.push_back({"proc-pidfd against cgroup (1,000-member tree)", "at most", 5,
                       ratio(reap_ms(r, "proc-pidfd"), reap_ms(r, "cgroup")), "×"});
  r.targets.push_back({"harness overhead per case", "at most", 3,
                       r.case_overhead_ms >= 0 ? std::optional(r.case_overhead_ms) : std::nullopt,
                       "ms"});
  r.targets.push_back(
      matrix_target("built-in matrix wall time", 15, r.matrix_wall_s, r.matrix_kill_s,
                    "the reapers' kill phases alone (run without the ledger)", r.matrix_jobs));
  r.targets.push_back(matrix_target(
      "--presets matrix wall time", 45, r.presets_matrix_wall_s, r.presets_matrix_kill_s,
      "the reapers' kill phases (the ledger's share in them)", r.matrix_jobs));
  r.targets.push_back({"ctest -L matrix against reapcheck run on the same cells", "at most", 1.2,
                       ratio(r.ctest_matrix_wall_s, r.matrix_wall_s), "×"});
  TargetCheck& leak = r.targets.emplace_back(cell_target(
      "a leaking cell's wall time beyond its reaper's kill time", 100, r.leak_excess_ms, "ms"));
  if (r.leak_excess_ms && r.leak_excess_ms->floor >= 0) {
    leak.floor = r.leak_excess_ms->floor;
    leak.floor_what = "its tree's start before the kill (spawn and tree phases)";
  }
  r.targets.push_back(
      cell_target("a case's reaper CPU time, of its wall time", 20, r.reaper_cpu_percent, "%"));
  std::optional<double> ledger_cost;
  if (r.matrix_wall_s && r.matrix_wall_no_ledger_s && *r.matrix_wall_no_ledger_s > 0) {
    ledger_cost = (*r.matrix_wall_s / *r.matrix_wall_no_ledger_s - 1) * 100;
  }
  r.targets.push_back({"the signal ledger's cost on the built-in matrix's wall time", "at most", 15,
                       ledger_cost, "%"});
}

void to_json(nlohmann::json& j, const SnapshotCost& s) {
  j = {{"processes", s.processes},         {"proc_us", s.proc_us},           {"source", s.source},
       {"proc_files_us", s.proc_files_us}, {"proc_full_us", s.proc_full_us}, {"ps_us", s.ps_us},
       {"open_floor_us", s.open_floor_us}, {"iterations", s.iterations}};
}

void from_json(const nlohmann::json& j, SnapshotCost& s) {
  j.at("processes").get_to(s.processes);
  j.at("proc_us").get_to(s.proc_us);
  j.at("source").get_to(s.source);
  j.at("proc_files_us").get_to(s.proc_files_us);
  j.at("proc_full_us").get_to(s.proc_full_us);
  j.at("ps_us").get_to(s.ps_us);
  j.at("open_floor_us").get_to(s.open_floor_us);
  j.at("iterations").get_to(s.iterations);
}

void to_json(nlohmann::json& j, const ReapSample& s) {
  j = {{"reaper", s.reaper},
       {"shape", s.shape},
       {"members", s.members},
       {"ms", s.ms >= 0 ? nlohmann::json(s.ms) : nlohmann::json(nullptr)},
       {"reaper_ms", s.reaper_ms},
       {"runs", s.runs},
       {"verdict", s.verdict},
       {"preset", s.preset}};
}

void to_json(nlohmann::json& j, const TargetCheck& t) {
  j = {{"target", t.name},
       {"relation", t.relation},
       {"limit", t.limit},
       {"unit", t.unit},
       {"measured", t.measured ? nlohmann::json(*t.measured) : nlohmann::json(nullptr)},
       {"met", t.measured ? nlohmann::json(t.met()) : nlohmann::json(nullptr)},
       {"floor", t.floor ? nlohmann::json(*t.floor) : nlohmann::json(nullptr)},
       {"floor_what", t.floor_what}};
}

namespace {

nlohmann::json cell_json(const std::optional<CellFigure>& f) {
  if (!f) return nullptr;
  return {{"value", f->value}, {"cell", f->cell}};
}

// As a case's phases_ms: [phase, ms] pairs in the order the phases run.
nlohmann::json phases_json(const std::vector<PhaseTime>& phases) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& p : phases) j.push_back({p.phase, p.ms});
  return j;
}

}  // namespace

void to_json(nlohmann::json& j, const BenchResult& r) {
  const SnapshotCost* at_1000 = r.snapshot_at(1000);
  j = {{"format", "reapcheck-bench/1"},
       {"quick", r.quick},
       {"smoke", r.smoke},
       {"interrupted", r.interrupted},
       {"machine", r.machine},
       {"snapshot", at_1000 != nullptr ? nlohmann::json(*at_1000) : nlohmann::json(nullptr)},
       {"snapshots", r.snapshots},
       {"reap", r.reap},
       {"case_overhead_ms", r.case_overhead_ms},
       {"case_ms", r.case_ms},
       {"process_costs",
        {{"fork_ms", r.process_costs.fork_ms},
         {"spawn_ms", r.process_costs.spawn_ms},
         {"perl_ms", r.process_costs.perl_ms}}},
       {"case_phases_ms", phases_json(r.case_phases_ms)},
       {"matrix_phases_ms", phases_json(r.matrix_phases_ms)},
       {"matrix_wall_s", r.matrix_wall_s ? nlohmann::json(*r.matrix_wall_s) : nlohmann::json()},
       {"matrix_wall_no_ledger_s",
        r.matrix_wall_no_ledger_s ? nlohmann::json(*r.matrix_wall_no_ledger_s) : nlohmann::json()},
       {"matrix_cases", r.matrix_cases},
       {"matrix_unexpected", r.matrix_unexpected},
       {"matrix_jobs", r.matrix_jobs},
       {"matrix_kill_s", r.matrix_kill_s ? nlohmann::json(*r.matrix_kill_s) : nlohmann::json()},
       {"presets_matrix_kill_s",
        r.presets_matrix_kill_s ? nlohmann::json(*r.presets_matrix_kill_s) : nlohmann::json()},
       {"ctest_matrix_wall_s",
        r.ctest_matrix_wall_s ? nlohmann::json(*r.ctest_matrix_wall_s) : nlohmann::json()},
       {"ctest_matrix_status", r.ctest_matrix_status},
       {"ctest_matrix_not_measured", r.ctest_matrix_not_measured},
       {"presets_matrix_wall_s",
        r.presets_matrix_wall_s ? nlohmann::json(*r.presets_matrix_wall_s) : nlohmann::json()},
       {"presets_matrix_cases", r.presets_matrix_cases},
       {"presets_matrix_unexpected", r.presets_matrix_unexpected},
       {"leak_excess_ms", cell_json(r.leak_excess_ms)},
       {"leak_watch_ms", cell_json(r.leak_watch_ms)},
       {"reaper_cpu_percent", cell_json(r.reaper_cpu_percent)},
       {"targets", r.targets}};
}

}  // namespace reapcheck
