// One cgroup v2 parent per run (per worker, with -j), under which the cgroup reaper and the
// supervisors create their groups, emptied after every case: a case's sandbox may be torn down
// before its reaper removes what it created. The area is an OwnedDir: one that a killed run
// left behind is reclaimed (its processes killed, its groups removed) by the next run.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/sandbox/owned_dir.h"

namespace reapcheck {

class CgroupArea {
 public:
  // Creates the parent; does nothing (and the cgroup reaper then reports why it cannot run) where
  // no writable cgroup v2 exists.
  CgroupArea();
  ~CgroupArea();
  CgroupArea(const CgroupArea&) = delete;
  CgroupArea& operator=(const CgroupArea&) = delete;

  // The parent, for the cgroup reaper's configuration; empty where none could be created.
  const std::string& path() const { return path_; }

  // Removes every (empty) group left under the parent, nested ones first.
  void sweep() const;

  // Kills what is left in the areas of runs that died without removing theirs, and removes them.
  // Returns how many it removed.
  static int reclaim_abandoned();
  // Every run's area in this process's cgroup, held or left: what reclaim_abandoned looks at.
  static std::vector<HostItem> list();

 private:
  std::optional<OwnedDir> dir_;
  std::string path_;
};

}  // namespace reapcheck
