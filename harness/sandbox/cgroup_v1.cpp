#include "harness/sandbox/cgroup_v1.h"

#include <unistd.h>

#include <exception>
#include <fstream>
#include <sstream>

#include "reaper/os/read_file.h"

namespace reapcheck {

std::string v1_mount(std::string_view controller) {
  std::ifstream mounts("/proc/self/mountinfo");
  const std::string option = "," + std::string(controller) + ",";
  for (std::string line; std::getline(mounts, line);) {  // "... - cgroup cgroup rw,pids"
    const size_t dash = line.find(" - cgroup ");
    if (dash == std::string::npos) continue;
    const std::string options = line.substr(line.rfind(' ') + 1);
    if (("," + options + ",").find(option) == std::string::npos) continue;
    std::istringstream in(line);
    std::string field;
    for (int i = 0; i < 5; ++i) in >> field;  // the mount point is the fifth field
    return field;
  }
  return {};
}

std::string own_v1_group(std::string_view controller) {
  const std::string key = ":" + std::string(controller) + ":";
  std::istringstream lines(reaper::read_file("/proc/self/cgroup"));
  for (std::string line; std::getline(lines, line);) {
    const size_t at = line.find(key);
    if (at != std::string::npos) return line.substr(at + key.size());
  }
  return {};
}

std::optional<OwnedDir> new_v1_group(const std::string& parent, std::string_view prefix) {
  if (parent.empty()) return std::nullopt;
  try {
    return OwnedDir(parent, prefix);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

int reclaim_v1_groups(const std::string& parent, std::string_view prefix) {
  if (parent.empty()) return 0;
  int removed = 0;
  for (const OwnedDir& group : OwnedDir::abandoned(parent, prefix)) {
    removed += ::rmdir(group.path().c_str()) == 0 ? 1 : 0;  // a killed run's case dies with it
  }
  return removed;
}

std::vector<HostItem> list_v1_groups(const std::string& parent, std::string_view prefix) {
  if (parent.empty()) return {};
  return OwnedDir::list(parent, prefix);
}

}  // namespace reapcheck
