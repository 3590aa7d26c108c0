// results.json: the source of truth every other report and outside tool reads.
#pragma once

#include <filesystem>

#include "harness/model/result.h"

namespace reapcheck {

void write_json_report(const RunResult& run, const std::filesystem::path& file);
RunResult read_json_report(const std::filesystem::path& file);

}  // namespace reapcheck
