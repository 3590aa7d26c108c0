// A case's bound on processes where the pids controller is not on cgroup v2 (a hybrid hierarchy,
// as Debian 12 with systemd's legacy layout has: pids on cgroup v1): a group of its own in the v1
// pids hierarchy, beside the harness's, with pids.max. The warden joins it before it clones
// PID 1, so everything the case starts counts against it; the case cannot raise it (the v1
// hierarchy is the host's, read-only and root's). A case worker holds one for all its cases
// (PidsBound), so that no case pays for joining one.
#pragma once

#include <optional>
#include <string>
#include <vector>

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
  // Every run's group beside this process's, held or left: what reclaim_abandoned looks at.
  static std::vector<HostItem> list();

  // The calling process is in a group made here (a PidsBound's), which bounds what it starts.
  static bool holds_caller();

 private:
  std::optional<OwnedDir> dir_;
  std::string path_;
};

// Puts the calling process in a group of its own for the scope's life, then back where it was.
// The cases it runs, one at a time, are each bounded by that group, and none pays for joining a
// group of its own: on cgroup v1 each write of cgroup.procs waits for an RCU grace period
// (10-15 ms, in about half the cases). For a case worker or a sequential run: the group's limit
// covers all the process starts, so a process running cases side by side would share it between
// their verdicts. Nothing where there is no v1 pids hierarchy of ours.
class PidsBound {
 public:
  explicit PidsBound(int limit);
  ~PidsBound();
  PidsBound(const PidsBound&) = delete;
  PidsBound& operator=(const PidsBound&) = delete;

 private:
  PidsGroup group_;   // destroyed last: empty once the process has left it
  std::string left_;  // the group it left, to go back to; empty when it joined none
};

}  // namespace reapcheck
