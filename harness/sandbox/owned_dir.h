// A directory that belongs to one process for as long as it lives, however it ends. The owner
// holds an flock on it, which the kernel drops when the owner's last fd to it closes, its death
// by SIGKILL included. A directory of this kind that nobody holds was left by a run killed
// before it could clean up (a CTest timeout, a SIGKILL), and the next run removes it. The pid in
// the name is for people; the lock is the evidence: a pid means nothing across PID namespaces or
// once recycled, a lock means the same everywhere.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string_view>
#include <vector>

#include "harness/sandbox/host_item.h"
#include "reaper/os/unique_fd.h"

namespace reapcheck {

// The pid everything a run holds is named for: the run's, read as the program starts, which its
// forked case workers and sandboxes inherit.
pid_t run_pid();

class OwnedDir {
 public:
  // Creates `parent`/<prefix><pid>-XXXXXX (mode 0700), <pid> the run's (the process that started
  // it, not a worker it forked), and holds it; throws, naming the path,
  // when it cannot. Removing it is the owner's business: this only holds the lock.
  OwnedDir(const std::filesystem::path& parent, std::string_view prefix);

  const std::filesystem::path& path() const { return path_; }

  // The directories <prefix><digits>-XXXXXX in `parent` that no process holds, each held by the
  // caller from now on, so two runs never reclaim the same one. None when `parent` is unreadable.
  static std::vector<OwnedDir> abandoned(const std::filesystem::path& parent,
                                         std::string_view prefix);

  // The directories <prefix><digits>-XXXXXX in `parent`, held or not, for `reapcheck clean
  // --list`: the same ones `abandoned` looks at, each with its run's pid and whether a process
  // holds it. None when `parent` is unreadable.
  static std::vector<HostItem> list(const std::filesystem::path& parent, std::string_view prefix);

 private:
  OwnedDir(std::filesystem::path path, reaper::UniqueFd lock)
      : path_(std::move(path)), lock_(std::move(lock)) {}

  std::filesystem::path path_;
  reaper::UniqueFd lock_;
};

}  // namespace reapcheck
