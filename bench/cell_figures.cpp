#include "bench/cell_figures.h"

namespace reapcheck {
namespace {

std::string cell_of(const CaseResult& c) {
  return c.scenario + " × " + c.reaper;
}

// The largest `value(c)` over the cases `counts(c)` admits.
template <typename Counts, typename Value>
std::optional<CellFigure> worst(const RunResult& run, Counts counts, Value value) {
  std::optional<CellFigure> out;
  for (const CaseResult& c : run.cases) {
    if (c.blocked || !counts(c)) continue;
    const double v = value(c);
    if (!out || v > out->value) out = CellFigure{v, cell_of(c)};
  }
  return out;
}

}  // namespace

std::optional<CellFigure> worst_leak_excess(const RunResult& run) {
  return worst(
      run, [](const CaseResult& c) { return c.verdict == Verdict::leak; },
      [](const CaseResult& c) { return c.case_ms - c.kill_ms; });
}

std::optional<CellFigure> worst_leak_watch(const RunResult& run) {
  return worst(
      run, [](const CaseResult& c) { return c.verdict == Verdict::leak; },
      [](const CaseResult& c) { return c.watched_ms; });
}

std::optional<CellFigure> worst_reaper_cpu_share(const RunResult& run) {
  return worst(
      run, [](const CaseResult& c) { return c.case_ms > 0; },
      [](const CaseResult& c) { return 100 * c.reaper_cpu_ms / c.case_ms; });
}

}  // namespace reapcheck
