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

// The folder of the running binary, PREFIX/bin.
std::filesystem::path own_dir() {
  std::error_code ec;
  return std::filesystem::read_symlink("/proc/self/exe", ec).parent_path();
}

std::filesystem::path share_dir() {
  return own_dir().parent_path() / "share" / "reapcheck";
}

}  // namespace

std::filesystem::path default_scenarios_dir() {
  return from_env_or("REAPCHECK_SCENARIOS", share_dir() / "scenarios");
}

std::filesystem::path fixtures_dir() {
  return from_env_or("REAPCHECK_FIXTURES", share_dir() / "fixtures");
}

std::string helper_path(const std::string& name) {
  if (const char* dir = std::getenv("REAPCHECK_LIBEXEC"); dir != nullptr && *dir != '\0') {
    return (std::filesystem::path(dir) / name).string();
  }
  const auto beside = own_dir() / name;
  if (::access(beside.c_str(), X_OK) == 0) return beside.string();
  return (own_dir().parent_path() / "libexec" / "reapcheck" / name).string();
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
