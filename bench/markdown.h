// The benchmark as a Markdown document: the targets with their ratios, then every figure.
#pragma once

#include <string>

#include "bench/result.h"

namespace reapcheck {

std::string bench_markdown(const BenchResult& result);

}  // namespace reapcheck
