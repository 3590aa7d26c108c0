#include "reports/json_report.h"

#include <fstream>
#include <stdexcept>

#include "harness/model/result_json.h"
#include "harness/model/text.h"
#include "reports/file_output.h"

namespace reapcheck {

void write_json_report(const RunResult& run, const std::filesystem::path& file) {
  write_text_file(file, json_text(nlohmann::json(run), 2) + "\n");
}

RunResult read_json_report(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error(file.string() + ": cannot read");
  try {
    return nlohmann::json::parse(in).get<RunResult>();
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(file.string() + ": not a reapcheck results file: " + e.what());
  }
}

}  // namespace reapcheck
