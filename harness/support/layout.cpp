#include "harness/support/layout.h"

#include <unistd.h>

#include <sstream>

namespace reapcheck {
namespace {

// The folder of the running binary, PREFIX/bin.
std::filesystem::path own_dir() {
  std::error_code ec;
  return std::filesystem::read_symlink("/proc/self/exe", ec).parent_path();
}

}  // namespace

Layout Layout::of_running_binary() {
  Layout layout;
  layout.bin = own_dir();
  layout.prefix = layout.bin.parent_path();
  const auto share = layout.prefix / "share" / "reapcheck";
  layout.scenarios = share / "scenarios";
  layout.fixtures = share / "fixtures";
  return layout;
}

std::string Layout::helper(const std::string& name) const {
  if (!libexec.empty()) return (libexec / name).string();
  const auto beside = bin / name;
  if (::access(beside.c_str(), X_OK) == 0) return beside.string();
  return (prefix / "libexec" / "reapcheck" / name).string();
}

std::vector<std::filesystem::path> Layout::harness_paths() const {
  std::vector<std::filesystem::path> paths;
  const auto add = [&](const std::filesystem::path& p) {
    std::error_code ec;
    auto real = std::filesystem::canonical(p, ec);
    if (!ec) paths.push_back(std::move(real));
  };
  add(prefix);  // PREFIX, or the build tree
  // The fixtures, and beside them (in a build tree, the checkout) the scripts presets and tests
  // name; through share/'s symbolic links, wherever they are.
  std::error_code ec;
  const auto real_fixtures = std::filesystem::canonical(fixtures, ec);
  if (!ec) add(real_fixtures.parent_path());
  add(scenarios);
  if (!libexec.empty()) add(libexec);
  add(std::filesystem::current_path());
  return paths;
}

std::string Layout::find_program(const std::string& program) const {
  return find_in_path(program, search_path);
}

std::vector<std::filesystem::path> existing_directories(const std::string& list) {
  std::vector<std::filesystem::path> paths;
  std::istringstream dirs(list);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    std::error_code ec;
    auto real = std::filesystem::canonical(dir, ec);
    if (!ec && std::filesystem::is_directory(real)) paths.push_back(std::move(real));
  }
  return paths;
}

std::string find_in_path(const std::string& program, const std::string& search_path) {
  if (program.find('/') != std::string::npos) {
    return ::access(program.c_str(), X_OK) == 0 ? program : std::string();
  }
  std::istringstream dirs(search_path);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

}  // namespace reapcheck
