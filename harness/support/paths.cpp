#include "harness/support/paths.h"

#include <unistd.h>

#include <cstdlib>
#include <sstream>

namespace reapcheck {
namespace {

std::filesystem::path from_env_or(const char* var, const std::filesystem::path& fallback) {
  const char* v = std::getenv(var);
  return v != nullptr && *v != '\0' ? std::filesystem::path(v) : fallback;
}

}  // namespace

std::filesystem::path default_scenarios_dir() {
  return from_env_or("REAPCHECK_SCENARIOS",
                     std::filesystem::path(REAPCHECK_SOURCE_DIR) / "scenarios");
}

std::filesystem::path fixtures_dir() {
  return from_env_or("REAPCHECK_FIXTURES",
                     std::filesystem::path(REAPCHECK_SOURCE_DIR) / "fixtures");
}

std::string helper_path(const std::string& name) {
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return (from_env_or("REAPCHECK_LIBEXEC", self.parent_path()) / name).string();
}

std::string find_in_path(const std::string& program) {
  if (program.find('/') != std::string::npos) {
    return ::access(program.c_str(), X_OK) == 0 ? program : std::string();
  }
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

}  // namespace reapcheck
