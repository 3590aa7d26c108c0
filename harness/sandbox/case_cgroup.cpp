#include "harness/sandbox/case_cgroup.h"

#include <unistd.h>

#include <chrono>
#include <exception>
#include <filesystem>

#include "harness/sandbox/memory_bound.h"
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

// Enables `controller` for the groups in `area` where the kernel offers it there; whether it did.
bool enable(const std::string& area, const std::string& controller) {
  if (!has_word(reaper::read_file(area + "/cgroup.controllers"), controller)) return false;
  if (!has_word(reaper::read_file(area + "/cgroup.subtree_control"), controller)) {
    reaper::write_file(area + "/cgroup.subtree_control", "+" + controller);
  }
  return true;
}

// pids.max on the group, where the kernel offers the controller.
bool bound_pids(const std::string& area, const std::string& group) {
  if (!enable(area, "pids")) return false;
  reaper::write_file(group + "/pids.max", std::to_string(kCasePidsMax));
  return true;
}

// memory.max on the group, no swap, and the whole group ended when the OOM killer ends one of
// its processes: a case over its bound ends at once rather than one victim at a time.
bool bound_memory(const std::string& area, const std::string& group, std::uint64_t max) {
  if (!enable(area, "memory")) return false;
  reaper::write_file(group + "/memory.max", std::to_string(max));
  if (std::filesystem::exists(group + "/memory.swap.max")) {
    reaper::write_file(group + "/memory.swap.max", "0");
  }
  reaper::write_file(group + "/memory.oom.group", "1");
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

CaseCgroup::CaseCgroup(const std::string& area, SandboxIds owner, std::uint64_t memory_max) {
  std::string pattern = area + "/case-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) reaper::throw_sys("create a case cgroup in " + area);
  path_ = pattern;
  try {
    pids_bounded_ = bound_pids(area, path_);
    memory_bounded_ = bound_memory(area, path_, memory_max);
    if (::geteuid() != 0) return;  // rootless: the group is already the invoking user's
    for (const char* file : {"", "/cgroup.procs", "/cgroup.subtree_control", "/cgroup.threads"}) {
      const std::string target = path_ + file;
      if (::chown(target.c_str(), owner.uid, owner.gid) != 0) {
        reaper::throw_sys("delegate " + target + " to the sandbox's uid");
      }
    }
  } catch (...) {
    ::rmdir(path_.c_str());  // empty: nothing has joined it yet
    throw;
  }
}

int CaseCgroup::oom_kills() const {
  return memory_bounded_ ? oom_kills_in(reaper::read_file(path_ + "/memory.events")) : 0;
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
