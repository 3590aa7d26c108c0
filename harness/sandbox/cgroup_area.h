// One cgroup v2 parent per run, under which the cgroup reaper creates its groups, emptied after
// every case: a case's sandbox may be torn down before its reaper removes what it created.
#pragma once

#include <string>

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

  // Removes every (empty) group left under the parent, and the groups nested in them.
  void sweep() const;

 private:
  std::string path_;
};

}  // namespace reapcheck
