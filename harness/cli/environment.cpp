#include "harness/cli/environment.h"

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace reapcheck {
namespace {

// The variable's value when it is set and not empty.
std::optional<std::string> variable(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string(v);
}

}  // namespace

Layout layout_from_environment() {
  Layout layout = Layout::of_running_binary();
  if (auto dir = variable("REAPCHECK_SCENARIOS")) layout.scenarios = *dir;
  if (auto dir = variable("REAPCHECK_FIXTURES")) layout.fixtures = *dir;
  if (auto dir = variable("REAPCHECK_LIBEXEC")) layout.libexec = *dir;
  if (auto dirs = variable("REAPCHECK_SHARE")) layout.shared = existing_directories(*dirs);
  if (auto path = variable("PATH")) layout.search_path = *path;
  if (auto dir = variable("TMPDIR")) layout.temp = *dir;
  return layout;
}

std::vector<std::string> toolchain_homes() {
  std::vector<std::string> out;
  const auto home = variable("HOME");
  for (const auto& [name, below_home] :
       {std::pair{"RUSTUP_HOME", ".rustup"}, std::pair{"CARGO_HOME", ".cargo"}}) {
    std::optional<std::string> dir = variable(name);
    if (!dir && home) dir = (std::filesystem::path(*home) / below_home).string();
    std::error_code ec;
    if (dir && std::filesystem::is_directory(*dir, ec))
      out.push_back(std::string(name) + "=" + *dir);
  }
  return out;
}

std::optional<bool> colour_from_environment() {
  if (variable("NO_COLOR")) return false;
  if (auto force = variable("FORCE_COLOR")) return *force != "0";
  return std::nullopt;
}

}  // namespace reapcheck
