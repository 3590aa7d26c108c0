#pragma once
// Where a case's time goes, phase by phase, from the phases the case runner records in each
// result (phases_ms: bystanders, spawn, tree, kill, audit, evidence, sandbox).
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "harness/model/result.h"

namespace reapcheck {

struct PhaseTime {
  std::string phase;
  double ms = 0;
};

enum class PhaseStat { mean, median };

// Each phase over the cases that ran (a blocked case records none), in the order the runner
// records them: the mean per case (for a matrix, where the sum is what counts) or the median
// (for repeats of one case, where one slow outlier should move nothing).
std::vector<PhaseTime> phase_times(const std::vector<CaseResult>& cases, PhaseStat stat);

// One case's time in `phases`, summed; 0 for a phase it did not record.
double phases_ms(const CaseResult& c, std::initializer_list<std::string_view> phases);

// The cases' time in `phases`, summed over every case that ran, in ms.
double phases_total_ms(const std::vector<CaseResult>& cases,
                       std::initializer_list<std::string_view> phases);

// What a phase holds and whose time it is, for the table; empty for a phase it does not know.
std::string phase_meaning(const std::string& phase);

}  // namespace reapcheck
