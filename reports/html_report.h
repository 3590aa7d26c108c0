// matrix.html: one self-contained page (no scripts, no network) showing scenario rows × reaper
// columns, each cell coloured by verdict and opening onto its evidence.
#pragma once

#include <filesystem>
#include <string>

#include "harness/model/result.h"

namespace reapcheck {

std::string html_matrix(const RunResult& run);
void write_html_report(const RunResult& run, const std::filesystem::path& file);

}  // namespace reapcheck
