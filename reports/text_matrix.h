// The terminal report: the scenario × reaper matrix, then every deviation with its evidence.
#pragma once

#include <string>

#include "harness/model/result.h"

namespace reapcheck {

std::string text_matrix(const RunResult& run, bool color);
std::string text_deviations(const RunResult& run);

}  // namespace reapcheck
