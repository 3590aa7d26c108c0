#include "harness/sandbox/case_cgroup.h"

#include <unistd.h>

#include <chrono>
#include <exception>
#include <filesystem>

#include "reaper/os/cgroup_fs.h"
#include "reaper/os/read_file.h"
#include "reaper/os/sys_error.h"
#include "reaper/os/write_file.h"

namespace reapcheck {
namespace {

constexpr std::chrono::seconds kEmptyWait{5};

bool has_word(const std::string& text, const std::string& word) {
  return (" " + text + " ").find(" " + word + " ") != std::string::npos ||
         (" " + text + "\n").find(" " + word + "\n") != std::string::npos;
}

// pids.max on the group, enabling the controller in its parent first where the kernel offers it.
bool bound_pids(const std::string& area, const std::string& group) {
  if (!has_word(reaper::read_file(area + "/cgroup.controllers"), "pids")) return false;
  if (!has_word(reaper::read_file(area + "/cgroup.subtree_control"), "pids")) {
    reaper::write_file(area + "/cgroup.subtree_control", "+pids");
  }
  reaper::write_file(group + "/pids.max", std::to_string(kCasePidsMax));
  return true;
}

void remove_tree(const std::filesystem::path& group) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(group, ec)) {
    if (entry.is_directory(ec)) remove_tree(entry.path());
  }
  ::rmdir(group.c_str());
}

}  // namespace

CaseCgroup::CaseCgroup(const std::string& area, SandboxIds owner) {
  std::string pattern = area + "/case-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) reaper::throw_sys("create a case cgroup in " + area);
  path_ = pattern;
  pids_bounded_ = bound_pids(area, path_);
  if (::geteuid() != 0) return;  // rootless: the group is already the invoking user's
  for (const char* file : {"", "/cgroup.procs", "/cgroup.subtree_control", "/cgroup.threads"}) {
    const std::string target = path_ + file;
    if (::chown(target.c_str(), owner.uid, owner.gid) != 0) {
      reaper::throw_sys("delegate " + target + " to the sandbox's uid");
    }
  }
}

CaseCgroup::~CaseCgroup() {
  try {
    reaper::write_file(path_ + "/cgroup.kill", "1");
    reaper::wait_empty(path_, kEmptyWait);
  } catch (const std::exception&) {
    // Already empty, or a kernel without cgroup.kill: what is empty still goes.
  }
  remove_tree(path_);
}

}  // namespace reapcheck
