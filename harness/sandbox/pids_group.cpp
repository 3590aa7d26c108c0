#include "harness/sandbox/pids_group.h"

#include <unistd.h>

#include <exception>
#include <fstream>
#include <sstream>

#include "reaper/os/read_file.h"
#include "reaper/os/write_file.h"

namespace reapcheck {
namespace {

// Where the v1 pids hierarchy is mounted ("... - cgroup cgroup rw,pids"); empty when it is not.
std::string pids_v1_mount() {
  std::ifstream mounts("/proc/self/mountinfo");
  for (std::string line; std::getline(mounts, line);) {
    const size_t dash = line.find(" - cgroup ");
    if (dash == std::string::npos) continue;
    const std::string options = line.substr(line.rfind(' ') + 1);
    if (("," + options + ",").find(",pids,") == std::string::npos) continue;
    std::istringstream in(line);
    std::string field;
    for (int i = 0; i < 5; ++i) in >> field;  // the mount point is the fifth field
    return field;
  }
  return {};
}

// This process's group in the v1 pids hierarchy ("N:pids:/path" in /proc/self/cgroup).
std::string own_pids_group() {
  std::istringstream lines(reaper::read_file("/proc/self/cgroup"));
  for (std::string line; std::getline(lines, line);) {
    const size_t at = line.find(":pids:");
    if (at != std::string::npos) return line.substr(at + 6);
  }
  return {};
}

constexpr std::string_view kPrefix = "reapcheck-case-";

// The folder the groups are made in; empty where there is no v1 pids hierarchy of ours.
std::string parent_group() {
  const std::string mount = pids_v1_mount();
  return mount.empty() || ::geteuid() != 0 ? std::string() : mount + own_pids_group();
}

}  // namespace

PidsGroup::PidsGroup(int limit) {
  const std::string parent = parent_group();
  if (parent.empty()) return;
  try {
    dir_.emplace(parent, kPrefix);
  } catch (const std::exception&) {
    return;  // not ours to write: no v1 bound
  }
  const std::string group = dir_->path().string();
  try {
    reaper::write_file(group + "/pids.max", std::to_string(limit));
  } catch (const std::exception&) {
    ::rmdir(group.c_str());
    throw;
  }
  path_ = group;
}

int PidsGroup::reclaim_abandoned() {
  const std::string parent = parent_group();
  if (parent.empty()) return 0;
  int removed = 0;
  for (const OwnedDir& group : OwnedDir::abandoned(parent, kPrefix)) {
    removed += ::rmdir(group.path().c_str()) == 0 ? 1 : 0;  // a killed run's case dies with it
  }
  return removed;
}

PidsGroup::~PidsGroup() {
  if (!path_.empty()) ::rmdir(path_.c_str());
}

}  // namespace reapcheck
