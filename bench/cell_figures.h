#pragma once
// The per-cell targets, read from a matrix run: the worst cell of each.
#include <optional>
#include <string>

#include "harness/model/result.h"

namespace reapcheck {

// One figure and the cell (scenario × reaper) that set it.
struct CellFigure {
  double value = 0;
  std::string cell;
  // Of `value`, the part the figure's cell spent on what is not the harness's, where the
  // figure says what that is (worst_leak_excess); -1 elsewhere.
  double floor = -1;
};

// The leaking cell whose wall time most exceeds its reaper's kill time, by how many ms: what a
// leak costs beyond the reaper's own work (set-up, settle, audit, teardown). Its floor is the
// tree's start before the kill (the spawn and tree phases: the interpreters starting, the
// members forking and announcing). Empty without one.
std::optional<CellFigure> worst_leak_excess(const RunResult& run);

// The leaking cell watched longest after its reaper returned, in ms: the settle's share of the
// excess above, which ends once every survivor's fate is certain rather than at the bound.
std::optional<CellFigure> worst_leak_watch(const RunResult& run);

// The case whose reaper spent the largest share of the case's wall time on the CPU itself, in
// percent. Only the reaper host's own time counts: what it waits for (a ps, a pgrep, the agents
// it reaps) is the reaper computing, or the tree's, which the issue leaves out.
std::optional<CellFigure> worst_reaper_cpu_share(const RunResult& run);

}  // namespace reapcheck
