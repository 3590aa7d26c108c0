// Reap latency against tree size, one line per reaper, as a self-contained SVG: log scales on
// both axes, since sizes span 10 to 5,000 members and latencies a millisecond to seconds.
#pragma once

#include <string>

#include "bench/result.h"

namespace reapcheck {

std::string bench_plot_svg(const BenchResult& result);

}  // namespace reapcheck
