// A list of processes drawn as a forest (children indented under their parents), the way the
// survivors of a case are shown in every human-readable report.
#pragma once

#include <string>
#include <vector>

#include "harness/model/result.h"

namespace reapcheck {

// Each row cut to `width` characters (0: whole).
std::string process_forest(const std::vector<ProcessRecord>& processes,
                           const std::string& indent = "  ", size_t width = 0);

}  // namespace reapcheck
