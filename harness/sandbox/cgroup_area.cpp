#include "harness/sandbox/cgroup_area.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <exception>
#include <filesystem>

#include "reaper/os/cgroup_fs.h"

namespace reapcheck {

CgroupArea::CgroupArea() {
  const std::string home = reaper::cgroup_home();
  if (home.empty()) return;
  const std::string path = home + "/reapcheck-run-" + std::to_string(::getpid());
  if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) return;
  path_ = path;
}

CgroupArea::~CgroupArea() {
  if (path_.empty()) return;
  // A case ended by an interrupt may still have processes exiting in its group: a group is
  // removable only once empty, and the area only once its groups are gone.
  try {
    reaper::wait_empty(path_, std::chrono::seconds(5));
  } catch (const std::exception&) {
    // Unreadable or already gone: nothing to wait for, and the rmdirs below say no more.
  }
  sweep();
  ::rmdir(path_.c_str());
}

namespace {

// Removes every group below `dir`, deepest first: a case's members may nest groups of their own.
void remove_groups_below(const std::filesystem::path& dir) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (!entry.is_directory(ec)) continue;
    remove_groups_below(entry.path());
    ::rmdir(entry.path().c_str());  // cgroupfs: rmdir, not unlink
  }
}

}  // namespace

void CgroupArea::sweep() const {
  if (!path_.empty()) remove_groups_below(path_);
}

}  // namespace reapcheck
