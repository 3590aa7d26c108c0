#include "harness/sandbox/pids_group.h"

#include <unistd.h>

#include <exception>
#include <filesystem>

#include "harness/sandbox/cgroup_v1.h"
#include "reaper/os/write_file.h"

namespace reapcheck {
namespace {

std::string pids_v1_mount() {
  return v1_mount("pids");
}

std::string own_pids_group() {
  return own_v1_group("pids");
}

constexpr std::string_view kPrefix = "reapcheck-case-";

// The group is one of ours.
bool ours(const std::string& group) {
  return std::filesystem::path(group).filename().string().rfind(kPrefix, 0) == 0;
}

// The folder the groups are made in, beside (never inside) a group of ours the process is in: a
// group's limit covers those nested in it. Empty where there is no v1 pids hierarchy of ours.
std::string parent_group() {
  const std::string mount = pids_v1_mount();
  if (mount.empty() || ::geteuid() != 0) return {};
  const std::string own = own_pids_group();
  return mount + (ours(own) ? std::filesystem::path(own).parent_path().string() : own);
}

}  // namespace

PidsGroup::PidsGroup(int limit) {
  dir_ = new_v1_group(parent_group(), kPrefix);
  if (!dir_) return;
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
  return reclaim_v1_groups(parent_group(), kPrefix);
}

std::vector<HostItem> PidsGroup::list() {
  return list_v1_groups(parent_group(), kPrefix);
}

PidsGroup::~PidsGroup() {
  if (!path_.empty()) ::rmdir(path_.c_str());
}

bool PidsGroup::holds_caller() {
  return ours(own_pids_group());
}

PidsBound::PidsBound(int limit) : group_(limit) {
  if (group_.path().empty()) return;
  const std::string own = own_pids_group();
  reaper::write_file(group_.path() + "/cgroup.procs", "0");
  left_ = own;
}

PidsBound::~PidsBound() {
  if (left_.empty()) return;
  try {
    reaper::write_file(pids_v1_mount() + left_ + "/cgroup.procs", "0");
  } catch (const std::exception&) {
    // Left in the group, which then stays until the process ends and the next run removes it.
  }
}

}  // namespace reapcheck
