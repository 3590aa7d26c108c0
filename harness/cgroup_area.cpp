#include "cgroup_area.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "reaper/cgroup_home.h"

namespace reapcheck {

CgroupArea::CgroupArea() {
  const std::string home = reaper::cgroup_home();
  if (home.empty()) return;
  const std::string path = home + "/reapcheck-run-" + std::to_string(::getpid());
  if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) return;
  path_ = path;
  ::setenv("REAPCHECK_CGROUP_PARENT", path_.c_str(), 1);
}

CgroupArea::~CgroupArea() {
  if (path_.empty()) return;
  sweep();
  ::rmdir(path_.c_str());
  ::unsetenv("REAPCHECK_CGROUP_PARENT");
}

void CgroupArea::sweep() const {
  if (path_.empty()) return;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(path_, ec)) {
    if (entry.is_directory(ec)) ::rmdir(entry.path().c_str());  // cgroupfs: rmdir, not unlink
  }
}

}  // namespace reapcheck
