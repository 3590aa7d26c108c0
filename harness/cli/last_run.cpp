#include "harness/cli/last_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "harness/cli/usage_error.h"
#include "reports/json_report.h"

namespace reapcheck {

RunResult read_last_run(const std::string& dir, const std::string& option) {
  const std::filesystem::path file = std::filesystem::path(dir) / "results.json";
  std::error_code error;
  if (!std::filesystem::is_regular_file(file, error)) {
    throw UsageError(fmt::format("{} {}: no results file {} there (a run's --out DIR holds one)",
                                 option, dir, file.string()));
  }
  try {
    return read_json_report(file);
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("{} {}: {}", option, dir, e.what()));
  }
}

std::vector<std::pair<std::string, std::string>> failed_cells(const RunResult& run) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& c : run.cases) {
    if (c.as_expected()) continue;
    std::pair cell{c.scenario, c.reaper_bytes.empty() ? c.reaper : c.reaper_bytes};
    if (std::find(out.begin(), out.end(), cell) == out.end()) out.push_back(std::move(cell));
  }
  return out;
}

std::map<CellKey, double> cell_times(const RunResult& run) {
  std::map<CellKey, std::pair<double, int>> sums;
  for (const auto& c : run.cases) {
    auto& [sum, count] = sums[{c.scenario, c.reaper}];
    sum += c.case_ms;
    ++count;
  }
  std::map<CellKey, double> out;
  for (const auto& [cell, sum] : sums) out[cell] = sum.first / sum.second;
  return out;
}

std::map<CellKey, double> last_cell_times(const std::string& dir) {
  const std::filesystem::path file = std::filesystem::path(dir) / "results.json";
  std::error_code error;
  if (dir.empty() || !std::filesystem::is_regular_file(file, error)) return {};
  try {
    return cell_times(read_json_report(file));
  } catch (const std::exception&) {
    return {};  // only an estimate is lost
  }
}

}  // namespace reapcheck
