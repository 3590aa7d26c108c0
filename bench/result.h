// The benchmark's results: what `reapcheck bench` measures and writes to bench.json, the
// Markdown table and the plot.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bench/cell_figures.h"
#include "bench/phases.h"
#include "bench/process_costs.h"

namespace reapcheck {

struct SnapshotCost {
  int processes = 0;  // in the table, as the snapshot saw it
  // ProcTable::read for the stat fields, as the reapers and the harness take it: from the BPF
  // task iterator where it is available, else from /proc's files. `source` says which.
  double proc_us = 0;
  std::string source;
  double proc_files_us = 0;  // the same from /proc's files: openat, read, close per process
  double proc_full_us = 0;   // /proc's files with argv and cwd, as the audit reads them
  double ps_us = 0;          // spawning ps -ax -o pid,ppid and parsing its output
  double open_floor_us = 0;  // listing /proc and opening and closing each <pid>/stat, no read
  int iterations = 0;        // each figure is the median of this many
};

// One reaper on one tree: the median over `runs` cases.
struct ReapSample {
  std::string reaper;  // a built-in id, or "cgroup.kill" for the bare kernel baseline
  std::string shape;   // "wide" (the agent and members-1 children) or "chain"
  int members = 0;
  double ms = -1;         // kill request until the last member died; -1 if some never did
  double reaper_ms = -1;  // kill request until the reaper returned
  int runs = 0;
  std::string verdict;  // of the last run: anything but pass makes `ms` suspect
  bool preset = false;  // a preset (an external reaper), measured on wide 100 and 1,000 only
};

// A target of the benchmark issue, as a ratio measured in this run.
struct TargetCheck {
  std::string name;      // "snapshot vs ps at 1,000 processes"
  std::string relation;  // "at least" or "at most"
  double limit = 0;
  std::optional<double> measured;  // empty when this run did not measure it
  std::string unit;                // "×", "ms", "s"
  // Of `measured`, the part that is not the harness's to cut, where it is known (the reapers'
  // kill phases of a matrix, spread over its workers), and what that part is. A floor above the
  // limit says the target is out of the harness's reach on this machine.
  std::optional<double> floor;
  std::string floor_what;
  bool met() const;
};

struct BenchResult {
  bool quick = false;
  bool smoke = false;                   // --smoke: the machinery on toy trees, no figure to read
  bool interrupted = false;             // the figures are those measured before the interrupt
  bool all_killed = true;               // every benchmark case killed its whole tree
  std::string machine;                  // cores and kernel
  std::vector<SnapshotCost> snapshots;  // one per process count
  std::vector<ReapSample> reap;
  double case_overhead_ms = -1;  // sandbox set-up, bystanders, audit and teardown per case
  double case_ms = -1;           // the whole trivial case, for scale
  ProcessCosts process_costs;    // this machine's, which every case's set-up sits on
  // Where a case's time goes: the trivial case's phases (the median of each) and the built-in
  // matrix's (the mean per case).
  std::vector<PhaseTime> case_phases_ms;
  std::vector<PhaseTime> matrix_phases_ms;
  std::optional<double> matrix_wall_s;
  std::optional<double> matrix_wall_no_ledger_s;  // the same matrix without the signal ledger
  int matrix_cases = 0;
  int matrix_unexpected = 0;
  int matrix_jobs = 0;
  // The matrices' kill phases summed over their cases, in s of case time: the reapers' own work,
  // their grace timers and the kernel's teardown. The built-in matrix's from its run without the
  // signal ledger, whose interception of each signal call is the harness's; the --presets
  // matrix's (run once, with the ledger) with that share in it.
  std::optional<double> matrix_kill_s;
  std::optional<double> presets_matrix_kill_s;
  // The built-in matrix through `ctest -L matrix` (ctest_matrix.h): its wall time, ctest's exit
  // status, or why it was not measured.
  std::optional<double> ctest_matrix_wall_s;
  int ctest_matrix_status = 0;
  std::string ctest_matrix_not_measured;
  // `reapcheck run --presets`: the built-ins and every preset on every scenario.
  std::optional<double> presets_matrix_wall_s;
  int presets_matrix_cases = 0;
  int presets_matrix_unexpected = 0;
  // From the built-in matrix run: the worst leaking cell's wall time beyond its reaper's kill
  // time, and the worst reaper CPU share of a case's wall time (cell_figures.h).
  std::optional<CellFigure> leak_excess_ms;
  std::optional<CellFigure> leak_watch_ms;  // of that excess, the watch after the reaper returned
  std::optional<CellFigure> reaper_cpu_percent;
  std::vector<TargetCheck> targets;

  // The snapshot of about `processes` (within 5%), or null.
  const SnapshotCost* snapshot_at(int processes) const;
  const ReapSample* sample(std::string_view reaper, std::string_view shape, int members) const;
};

// The median of `values` (the upper one of an even count); -1 when there are none. Every figure
// of the benchmark is one, so that one slow outlier on a busy machine moves nothing.
double median(std::vector<double> values);

// Fills `targets` from the measurements, one check per target of the issue.
void evaluate_targets(BenchResult& result);

void to_json(nlohmann::json& j, const SnapshotCost& s);
void from_json(const nlohmann::json& j, SnapshotCost& s);
void to_json(nlohmann::json& j, const ReapSample& s);
void to_json(nlohmann::json& j, const TargetCheck& t);
void to_json(nlohmann::json& j, const BenchResult& r);

}  // namespace reapcheck
