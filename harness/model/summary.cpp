#include "harness/model/summary.h"

#include <algorithm>

namespace reapcheck {

bool Cell::consistent() const {
  if (verdicts.size() <= 1) return true;
  return !expected_also.empty() &&
         std::all_of(verdicts.begin(), verdicts.end(), [&](const auto& seen) {
           return is_declared_form(seen.first, expected, expected_also);
         });
}

bool Cell::as_expected() const {
  return consistent() && std::all_of(runs.begin(), runs.end(),
                                     [](const CaseResult* c) { return c->as_expected(); });
}

const Cell* Summary::find(const std::string& scenario, const std::string& reaper) const {
  for (const auto& c : cells) {
    if (c.scenario == scenario && c.reaper == reaper) return &c;
  }
  return nullptr;
}

int Summary::unexpected() const {
  return static_cast<int>(std::count_if(cells.begin(), cells.end(), [](const Cell& c) {
    return c.consistent() && !c.as_expected();
  }));
}

int Summary::inconsistent() const {
  return static_cast<int>(
      std::count_if(cells.begin(), cells.end(), [](const Cell& c) { return !c.consistent(); }));
}

int Summary::skipped() const {
  return static_cast<int>(std::count_if(cells.begin(), cells.end(), [](const Cell& c) {
    return c.consistent() && c.verdict() == Verdict::skipped;
  }));
}

Summary summarise(const RunResult& run) {
  Summary s;
  auto remember = [](std::vector<std::string>& list, const std::string& id) {
    if (std::find(list.begin(), list.end(), id) == list.end()) list.push_back(id);
  };
  for (const auto& c : run.cases) {
    remember(s.scenarios, c.scenario);
    remember(s.reapers, c.reaper);
  }
  for (const auto& scenario : s.scenarios) {
    for (const auto& reaper : s.reapers) {
      Cell cell{scenario, reaper, Verdict::pass, {}, {}, {}};
      for (const auto& c : run.cases) {
        if (c.scenario != scenario || c.reaper != reaper) continue;
        cell.expected = c.expected;
        cell.expected_also = c.expected_also;
        ++cell.verdicts[c.verdict];
        cell.runs.push_back(&c);
      }
      if (!cell.runs.empty()) s.cells.push_back(std::move(cell));
    }
  }
  return s;
}

}  // namespace reapcheck
