#include "bench/cell_figures.h"

#include "bench/phases.h"

namespace reapcheck {
namespace {

std::string cell_of(const CaseResult& c) {
  return c.scenario + " × " + c.reaper;
}

// The case with the largest `value(c)` of those `counts(c)` admits, or null.
template <typename Counts, typename Value>
const CaseResult* worst_case(const RunResult& run, Counts counts, Value value) {
  const CaseResult* out = nullptr;
  for (const CaseResult& c : run.cases) {
    if (c.blocked || !counts(c)) continue;
    if (out == nullptr || value(c) > value(*out)) out = &c;
  }
  return out;
}

// The largest `value(c)` over the cases `counts(c)` admits, and its cell.
template <typename Counts, typename Value>
std::optional<CellFigure> worst(const RunResult& run, Counts counts, Value value) {
  const CaseResult* c = worst_case(run, counts, value);
  if (c == nullptr) return std::nullopt;
  return CellFigure{value(*c), cell_of(*c)};
}

}  // namespace

std::optional<CellFigure> worst_leak_excess(const RunResult& run) {
  const auto excess = [](const CaseResult& c) { return c.case_ms - c.kill_ms; };
  const CaseResult* c = worst_case(
      run, [](const CaseResult& r) { return r.verdict == Verdict::leak; }, excess);
  if (c == nullptr) return std::nullopt;
  return CellFigure{excess(*c), cell_of(*c), phases_ms(*c, {"spawn", "tree"})};
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
