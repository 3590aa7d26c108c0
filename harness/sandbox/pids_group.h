// A case's bound on processes where the pids controller is not on cgroup v2 (a hybrid hierarchy,
// as Debian 12 with systemd's legacy layout has: pids on cgroup v1): a group of its own in the v1
// pids hierarchy, beside the harness's, with pids.max. The warden joins it before it clones
// PID 1, so everything the case starts counts against it; the case cannot raise it (the v1
// hierarchy is the host's, read-only and root's).
#pragma once

#include <optional>
#include <string>

#include "harness/sandbox/owned_dir.h"

namespace reapcheck {

class PidsGroup {
 public:
  // Creates the group with pids.max = `limit`; nothing where no v1 pids hierarchy is mounted or
  // it is not writable (rootless).
  explicit PidsGroup(int limit);
  // Removes it: by then PID 1 has been reaped, so every process that counted against it is gone.
  ~PidsGroup();
  PidsGroup(const PidsGroup&) = delete;
  PidsGroup& operator=(const PidsGroup&) = delete;

  // The group's directory; empty when there is none.
  const std::string& path() const { return path_; }

  // Removes the groups of runs that died without removing theirs (held, like the scratch
  // directories, by an flock for as long as their run lives); returns how many.
  static int reclaim_abandoned();

 private:
  std::optional<OwnedDir> dir_;
  std::string path_;
};

}  // namespace reapcheck
