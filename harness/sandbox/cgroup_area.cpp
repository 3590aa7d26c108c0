#include "harness/sandbox/cgroup_area.h"

#include <unistd.h>

#include <chrono>
#include <exception>
#include <filesystem>

#include "reaper/os/cgroup_fs.h"
#include "reaper/os/write_file.h"

namespace reapcheck {
namespace {

constexpr std::string_view kPrefix = "reapcheck-run-";
constexpr std::chrono::seconds kEmptyWait{5};

// Waits for `group` to empty (a case ended by an interrupt may still have processes exiting in
// it): a group is removable only once empty.
void await_empty(const std::string& group) {
  try {
    reaper::wait_empty(group, kEmptyWait);
  } catch (const std::exception&) {
    // Unreadable or already gone: nothing to wait for, and the rmdirs after say no more.
  }
}

// Removes the groups below `group`, deepest first (cgroupfs: rmdir, not unlink); one that is
// not empty stays.
void remove_below(const std::filesystem::path& group) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(group, ec)) {
    if (!entry.is_directory(ec)) continue;
    remove_below(entry.path());
    ::rmdir(entry.path().c_str());
  }
}

}  // namespace

CgroupArea::CgroupArea() {
  const std::string home = reaper::cgroup_home();
  if (home.empty()) return;
  try {
    dir_.emplace(home, kPrefix);
    path_ = dir_->path().string();
  } catch (const std::exception&) {
    // Not writable here: the cgroup reaper says so when it runs.
  }
}

CgroupArea::~CgroupArea() {
  if (path_.empty()) return;
  await_empty(path_);
  sweep();
  ::rmdir(path_.c_str());
}

void CgroupArea::sweep() const {
  if (!path_.empty()) remove_below(path_);
}

int CgroupArea::reclaim_abandoned() {
  const std::string home = reaper::cgroup_home();
  if (home.empty()) return 0;
  int removed = 0;
  for (const OwnedDir& area : OwnedDir::abandoned(home, kPrefix)) {
    // Everything in it was started by the run that owned it; cgroup.kill reaches the groups
    // below too. Its processes may outlive a SIGKILLed run by a moment.
    const std::string path = area.path().string();
    try {
      reaper::write_file(path + "/cgroup.kill", "1");
    } catch (const std::exception&) {
      // A kernel without cgroup.kill: the groups that are empty still go.
    }
    await_empty(path);
    remove_below(area.path());
    removed += ::rmdir(path.c_str()) == 0 ? 1 : 0;
  }
  return removed;
}

std::vector<HostItem> CgroupArea::list() {
  const std::string home = reaper::cgroup_home();
  if (home.empty()) return {};
  return OwnedDir::list(home, kPrefix);
}

}  // namespace reapcheck
