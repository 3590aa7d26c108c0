// A run folded into cells, one per scenario × reaper, over its repeats: what the matrix shows
// and what decides the exit status.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "harness/model/result.h"

namespace reapcheck {

struct Cell {
  std::string scenario;
  std::string reaper;
  Verdict expected = Verdict::pass;
  std::vector<Verdict> expected_also;   // the weakness's other forms (expectations.h's `also`)
  std::map<Verdict, int> verdicts;      // verdict → how many runs gave it
  std::vector<const CaseResult*> runs;  // in run order

  // Every run gave the same verdict, or each one a declared form of the same weakness.
  bool consistent() const;
  bool as_expected() const;  // consistent, and every run as expected
  Verdict verdict() const { return verdicts.empty() ? Verdict::skipped : verdicts.begin()->first; }
};

struct Summary {
  std::vector<std::string> scenarios;  // in first-seen order
  std::vector<std::string> reapers;
  std::vector<Cell> cells;  // scenario-major
  const Cell* find(const std::string& scenario, const std::string& reaper) const;
  int unexpected() const;    // cells whose verdict differs from the expectation
  int inconsistent() const;  // cells whose repeats disagree
  int skipped() const;
  bool ok() const { return unexpected() == 0 && inconsistent() == 0; }
};

Summary summarise(const RunResult& run);

}  // namespace reapcheck
