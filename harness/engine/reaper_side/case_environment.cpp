#include "harness/engine/reaper_side/case_environment.h"

#include <debian_packages.h>
#include <fmt/format.h>
#include <signal.h>
#include <string.h>

#include <set>
#include <stdexcept>

namespace reapcheck {
namespace {

namespace fs = std::filesystem;

// Links every program of `dirs` into `into`, the first of a name winning, except `left_out`.
void link_programs(const std::vector<fs::path>& dirs, const fs::path& into,
                   const std::string& left_out) {
  fs::create_directories(into);
  std::set<std::string> seen = {left_out};
  for (const auto& dir : dirs) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      const std::string name = entry.path().filename().string();
      if (!seen.insert(name).second) continue;
      fs::create_symlink(entry.path(), into / name);
    }
  }
}

}  // namespace

std::string case_path(CaseSetup::Path path, const fs::path& scratch, const Layout& layout) {
  switch (path) {
    case CaseSetup::Path::without_ps: {
      const fs::path dir = scratch / "path-without-ps";
      link_programs({"/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin"}, dir, "ps");
      return dir.string();
    }
    case CaseSetup::Path::busybox_ps: {
      const fs::path dir = scratch / "path-busybox-ps";
      fs::create_directories(dir);
      fs::create_symlink(layout.find_program("busybox"), dir / "ps");
      return dir.string() + ":" + kStandardPath;
    }
    case CaseSetup::Path::standard:
      break;
  }
  return kStandardPath;
}

std::string missing_environment(const CaseSetup& setup, const Layout& layout) {
  constexpr debian::Program kBusybox = "busybox";
  if (setup.path == CaseSetup::Path::busybox_ps &&
      layout.find_program(std::string(kBusybox.name)).empty()) {
    return fmt::format("busybox is not installed (Debian package {}; scripts/setup.sh installs it)",
                       kBusybox.package);
  }
  return {};
}

std::vector<int> signal_numbers(const std::vector<std::string>& names) {
  std::vector<int> out;
  for (const auto& name : names) {
    int found = 0;
    for (int sig = 1; sig < NSIG && found == 0; ++sig) {
      const char* abbrev = ::sigabbrev_np(sig);
      if (abbrev != nullptr && name == abbrev) found = sig;
    }
    if (found == 0) throw std::invalid_argument("no signal is called SIG" + name);
    out.push_back(found);
  }
  return out;
}

}  // namespace reapcheck
