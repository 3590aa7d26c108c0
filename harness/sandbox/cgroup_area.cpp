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

void CgroupArea::sweep() const {
  if (path_.empty()) return;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(path_, ec)) {
    if (entry.is_directory(ec)) ::rmdir(entry.path().c_str());  // cgroupfs: rmdir, not unlink
  }
}

}  // namespace reapcheck
