// matrix.html: one self-contained page (no network; one inline script for the filters) showing
// scenario rows × reaper columns, each cell labelled and coloured by verdict, linkable, and
// opening onto its evidence; a block says which reapcheck, kernel and options made it, and when.
#pragma once

#include <filesystem>
#include <string>

#include "harness/model/result.h"

namespace reapcheck {

std::string html_matrix(const RunResult& run);
void write_html_report(const RunResult& run, const std::filesystem::path& file);

}  // namespace reapcheck
