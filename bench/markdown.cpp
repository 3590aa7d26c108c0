#include "bench/markdown.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace reapcheck {
namespace {

std::string figure(double v, std::string_view unit) {
  if (unit == "×") return fmt::format("{:.1f}×", v);
  if (unit == "s") return fmt::format("{:.1f} s", v);
  return fmt::format("{:.1f} {}", v, unit);
}

// "met", or by how much it was missed, in the target's own terms.
std::string standing(const TargetCheck& t) {
  if (!t.measured) return "not measured in this run";
  if (t.met()) return "met";
  if (t.unit == "×" && t.relation == "at least") {
    return fmt::format("missed: {:.1f}× short", t.limit / *t.measured);
  }
  if (t.unit == "×") return fmt::format("missed: {:.1f}× over", *t.measured / t.limit);
  std::string missed = fmt::format("missed by {}", figure(*t.measured - t.limit, t.unit));
  if (!t.floor) return missed;
  // What the harness could not have cut, and whether the limit is in reach without it.
  return fmt::format("{}; {}: {}{}", missed, t.floor_what, figure(*t.floor, t.unit),
                     *t.floor > t.limit ? ", over the limit on its own" : "");
}

std::string ms_cell(const ReapSample* s) {
  if (s == nullptr) return "";
  if (s->ms < 0) return fmt::format("never ({})", s->verdict);
  return fmt::format("{:.1f}", s->ms);
}

std::string targets_section(const BenchResult& r) {
  std::string md = "## Targets\n\n| Target | Limit | Measured | |\n|---|---|---|---|\n";
  for (const auto& t : r.targets) {
    md += fmt::format("| {} | {} {} | {} | {} |\n", t.name, t.relation == "at least" ? "≥" : "≤",
                      figure(t.limit, t.unit), t.measured ? figure(*t.measured, t.unit) : "—",
                      standing(t));
  }
  return md;
}

std::string snapshot_section(const BenchResult& r) {
  std::string md =
      "\n## Process-table snapshot (median µs)\n\n"
      "| Processes | ProcTable::read (source) | ps -ax -o pid,ppid | ps ÷ ProcTable | "
      "/proc files, stat | /proc files, argv and cwd | floor: open+close each stat |\n"
      "|---|---|---|---|---|---|---|\n";
  for (const auto& s : r.snapshots) {
    md += fmt::format("| {} | {:.0f} ({}) | {:.0f} | {:.1f}× | {:.0f} | {:.0f} | {:.0f} |\n",
                      s.processes, s.proc_us, s.source, s.ps_us,
                      s.proc_us > 0 ? s.ps_us / s.proc_us : 0, s.proc_files_us, s.proc_full_us,
                      s.open_floor_us);
  }
  if (const SnapshotCost* s = r.snapshot_at(1000); s != nullptr && s->open_floor_us > 0) {
    md += fmt::format(
        "\nAt {} processes, reading /proc's files is {:.1f}× cheaper than ps. Their floor — "
        "listing /proc and opening and closing each `stat`, reading nothing — is {:.0f} µs, so no "
        "snapshot that opens a file per process can be more than {:.1f}× cheaper here; the BPF "
        "task iterator reads the task list in one `read()`.\n",
        s->processes, s->proc_files_us > 0 ? s->ps_us / s->proc_files_us : 0, s->open_floor_us,
        s->ps_us / s->open_floor_us);
  }
  return md;
}

// A table per figure (reap latency; the reaper's return) of the samples with `preset` as asked:
// a row per reaper in first-seen order, a column per shape and size measured.
std::string reap_tables(const BenchResult& r, bool preset, const std::string& heading) {
  std::vector<std::string> reapers;
  std::vector<std::pair<std::string, int>> columns;
  for (const auto& s : r.reap) {
    if (s.preset != preset) continue;
    if (std::find(reapers.begin(), reapers.end(), s.reaper) == reapers.end())
      reapers.push_back(s.reaper);
    const std::pair<std::string, int> col{s.shape, s.members};
    if (std::find(columns.begin(), columns.end(), col) == columns.end()) columns.push_back(col);
  }
  std::string md;
  for (const auto& [title, returned] :
       {std::pair{"Reap latency: kill request until every member is dead (median ms)", false},
        std::pair{"Reaper returned: kill request until the reaper reported done (median ms)",
                  true}}) {
    md += fmt::format("\n## {}{}\n\n| Reaper |", heading, title);
    for (const auto& [shape, members] : columns) md += fmt::format(" {} {} |", shape, members);
    md += "\n|---|";
    for (size_t i = 0; i < columns.size(); ++i) md += "---|";
    md += "\n";
    for (const auto& reaper : reapers) {
      md += fmt::format("| {} |", reaper);
      for (const auto& [shape, members] : columns) {
        const ReapSample* s = r.sample(reaper, shape, members);
        md += " " +
              (returned ? (s != nullptr ? fmt::format("{:.1f}", s->reaper_ms) : "") : ms_cell(s)) +
              " |";
      }
      md += "\n";
    }
  }
  return md;
}

std::string matrix_cell(const std::optional<double>& wall_s, int cases, int jobs, int unexpected) {
  if (!wall_s) return "not run (--quick, --smoke, --no-presets or --ledger-only)";
  return fmt::format("{:.1f} s for {} cases on {} workers ({} unexpected)", *wall_s, cases, jobs,
                     unexpected);
}

std::string ctest_cell(const BenchResult& r) {
  if (r.ctest_matrix_wall_s) {
    return fmt::format(
        "{:.1f} s{}", *r.ctest_matrix_wall_s,
        r.ctest_matrix_status == 0
            ? ""
            : fmt::format(" (ctest exit {}: see ctest-matrix.log)", r.ctest_matrix_status));
  }
  if (!r.ctest_matrix_not_measured.empty()) return "not measured: " + r.ctest_matrix_not_measured;
  return "not run (--quick or --smoke)";
}

std::string process_costs_cell(const ProcessCosts& c) {
  const auto ms = [](double v) { return v >= 0 ? fmt::format("{:.2f} ms", v) : std::string("—"); };
  return fmt::format("{}; {}; {}", ms(c.fork_ms), ms(c.spawn_ms), ms(c.perl_ms));
}

std::string harness_section(const BenchResult& r) {
  return fmt::format(
      "\n## Harness\n\n"
      "| | |\n|---|---|\n| Overhead per case (sandbox, bystanders, audit, teardown) | {} |\n"
      "| Whole trivial case | {} |\n"
      "| This machine's process starts (medians): a fork of the bench process; a spawn and exec "
      "of /bin/true; `perl -e 0` | {} |\n"
      "| Built-in matrix | {} |\n"
      "| Built-in matrix without the signal ledger | {} |\n"
      "| Built-in matrix through `ctest -L matrix` (one process per scenario) | {} |\n"
      "| `run --presets` matrix (the built-ins and every preset) | {} |\n"
      "| A leaking cell's watch after its reaper returned (the settle; worst cell) | {} |\n",
      r.case_overhead_ms >= 0 ? fmt::format("{:.1f} ms", r.case_overhead_ms) : "—",
      r.case_ms >= 0 ? fmt::format("{:.1f} ms", r.case_ms) : "—",
      process_costs_cell(r.process_costs),
      matrix_cell(r.matrix_wall_s, r.matrix_cases, r.matrix_jobs, r.matrix_unexpected),
      r.matrix_wall_no_ledger_s
          ? fmt::format("{:.1f} s", *r.matrix_wall_no_ledger_s)
          : std::string("not run (--quick, --smoke, --no-presets or --ledger-only)"),
      ctest_cell(r),
      matrix_cell(r.presets_matrix_wall_s, r.presets_matrix_cases, r.matrix_jobs,
                  r.presets_matrix_unexpected),
      r.leak_watch_ms
          ? fmt::format("{:.1f} ms ({})", r.leak_watch_ms->value, r.leak_watch_ms->cell)
          : std::string("no leaking cell timed (--quick, --smoke, --no-presets or --ledger-only)"));
}

// The phases of the trivial case and of the built-in matrix side by side, in the order they run.
std::string phases_section(const BenchResult& r) {
  if (r.case_phases_ms.empty() && r.matrix_phases_ms.empty()) return {};
  std::vector<std::string> order;
  for (const auto* phases : {&r.case_phases_ms, &r.matrix_phases_ms}) {
    for (const PhaseTime& p : *phases) {
      if (std::find(order.begin(), order.end(), p.phase) == order.end()) order.push_back(p.phase);
    }
  }
  const auto cell = [](const std::vector<PhaseTime>& phases, const std::string& phase) {
    const auto it = std::find_if(phases.begin(), phases.end(),
                                 [&](const PhaseTime& p) { return p.phase == phase; });
    return it == phases.end() ? std::string("—") : fmt::format("{:.1f}", it->ms);
  };
  std::string md =
      "\n## Where a case's time goes\n\n"
      "| phase | trivial case, ms (median) | built-in matrix, ms a case (mean) | what it is |\n"
      "|---|---|---|---|\n";
  for (const std::string& phase : order) {
    md += fmt::format("| {} | {} | {} | {} |\n", phase, cell(r.case_phases_ms, phase),
                      cell(r.matrix_phases_ms, phase), phase_meaning(phase));
  }
  return md;
}

}  // namespace

std::string bench_markdown(const BenchResult& r) {
  std::string md =
      fmt::format("# reapcheck bench{}{}\n\n{}\n\n",
                  r.smoke   ? " (--smoke)"
                  : r.quick ? " (--quick)"
                            : "",
                  r.interrupted ? " — interrupted: the figures measured before it" : "", r.machine);
  md += targets_section(r);
  md += snapshot_section(r);
  md += reap_tables(r, false, "");
  md +=
      "\n`cgroup.kill` is the cgroup reaper with no grace period: a bare `cgroup.kill` and a "
      "wait for `populated 0`, the kernel's own limit.\n";
  md += reap_tables(r, true, "Presets — ");
  md +=
      "\nA preset that leaves members behind never reaches all-dead (its verdict is shown); one "
      "that cannot run here is skipped.\n";
  md += harness_section(r);
  md += phases_section(r);
  return md;
}

}  // namespace reapcheck
