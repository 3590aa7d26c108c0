#include "harness/sandbox/owned_dir.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "reaper/os/sys_error.h"

namespace reapcheck {
namespace {

constexpr int kAttempts = 8;
constexpr size_t kSuffix = 6;  // mkdtemp's XXXXXX

// The directory's lock, or nothing when another process holds it (or it has gone). A reclaim
// that locked and removed the directory between our open() and flock() lets the lock through on
// a directory no longer there: the lock counts only if `dir` still names what was locked.
reaper::UniqueFd try_lock(const std::filesystem::path& dir) {
  reaper::UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd || ::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) return {};
  struct stat locked {};
  struct stat named {};
  if (::fstat(fd.get(), &locked) != 0 || ::stat(dir.c_str(), &named) != 0 ||
      locked.st_ino != named.st_ino || locked.st_dev != named.st_dev) {
    return {};
  }
  return fd;
}

// <prefix><digits>-XXXXXX, and nothing else: a name a user may have chosen is never touched.
bool is_owned_name(std::string_view name, std::string_view prefix) {
  if (name.substr(0, prefix.size()) != prefix) return false;
  name.remove_prefix(prefix.size());
  const size_t dash = name.find('-');
  if (dash == 0 || dash == std::string_view::npos || name.size() - dash - 1 != kSuffix) {
    return false;
  }
  const auto is_digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  const auto is_alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  return std::all_of(name.begin(), name.begin() + static_cast<std::ptrdiff_t>(dash), is_digit) &&
         std::all_of(name.begin() + static_cast<std::ptrdiff_t>(dash) + 1, name.end(), is_alnum);
}

// The pid the directories are named after: the run's, read as the program starts, which its
// forked case workers and sandboxes inherit, so that everything a run holds carries one pid
// (`reapcheck clean`'s lists, a test looking for what one run left).
const pid_t kRunPid = ::getpid();

// The directories of ours in `parent`: named as ours, not symlinks.
std::vector<std::filesystem::path> owned_dirs(const std::filesystem::path& parent,
                                              std::string_view prefix) {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(parent, ec)) {
    if (!is_owned_name(entry.path().filename().string(), prefix)) continue;
    if (entry.is_symlink(ec) || !entry.is_directory(ec)) continue;
    out.push_back(entry.path());
  }
  return out;
}

}  // namespace

pid_t run_pid() {
  return kRunPid;
}

OwnedDir::OwnedDir(const std::filesystem::path& parent, std::string_view prefix) {
  // Between mkdir and flock another run's reclaim may find the directory unheld and take it; the
  // lock tells who won, and the loser here tries a fresh name.
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    std::string pattern =
        (parent / (std::string(prefix) + std::to_string(kRunPid) + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr) reaper::throw_sys("mkdtemp " + pattern);
    if (reaper::UniqueFd lock = try_lock(pattern)) {
      path_ = pattern;
      lock_ = std::move(lock);
      return;
    }
  }
  throw std::runtime_error("cannot hold a directory of my own in " + parent.string() +
                           ": another run's reclaim took each one I made");
}

std::vector<OwnedDir> OwnedDir::abandoned(const std::filesystem::path& parent,
                                          std::string_view prefix) {
  std::vector<OwnedDir> out;
  for (const auto& dir : owned_dirs(parent, prefix)) {
    if (reaper::UniqueFd lock = try_lock(dir)) out.push_back(OwnedDir(dir, std::move(lock)));
  }
  return out;
}

std::vector<HostItem> OwnedDir::list(const std::filesystem::path& parent, std::string_view prefix) {
  std::vector<HostItem> out;
  for (const auto& dir : owned_dirs(parent, prefix)) {
    const std::string name = dir.filename().string();
    const auto run = static_cast<pid_t>(std::strtol(name.c_str() + prefix.size(), nullptr, 10));
    const bool held = flock_holder(dir).has_value();
    out.push_back({dir.string(), run, held ? HostItem::State::alive : HostItem::State::dead});
  }
  return out;
}

}  // namespace reapcheck
