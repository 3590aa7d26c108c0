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

std::vector<std::filesystem::path> harness_paths() {
  std::vector<std::filesystem::path> paths;
  const auto add = [&](const std::filesystem::path& p) {
    std::error_code ec;
    auto real = std::filesystem::canonical(p, ec);
    if (!ec) paths.push_back(std::move(real));
  };
  add(own_dir().parent_path());  // PREFIX, or the build tree
  // The fixtures, and beside them (in a build tree, the checkout) the scripts presets and tests
  // name; through share/'s symbolic links, wherever they are.
  std::error_code ec;
  const auto fixtures = std::filesystem::canonical(fixtures_dir(), ec);
  if (!ec) add(fixtures.parent_path());
  add(default_scenarios_dir());
  if (const char* libexec = std::getenv("REAPCHECK_LIBEXEC")) add(libexec);
  add(std::filesystem::current_path());
  return paths;
}

std::vector<std::filesystem::path> shared_paths() {
  std::vector<std::filesystem::path> paths;
  const char* share = std::getenv("REAPCHECK_SHARE");
  std::istringstream dirs(share != nullptr ? share : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    std::error_code ec;
    auto real = std::filesystem::canonical(dir, ec);
    if (!ec && std::filesystem::is_directory(real)) paths.push_back(std::move(real));
  }
  return paths;
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
