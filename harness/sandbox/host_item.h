// One thing a reapcheck run holds on the host (a scratch directory, a cgroup area, a pids group,
// a tracing instance), as `reapcheck clean --list` shows it: where it is, which run it belongs to
// and whether that run still holds it. Each kind is listed by the class that makes and reclaims
// it, from the same names and the same places.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>

namespace reapcheck {

struct HostItem {
  enum class State {
    alive,  // its run holds it
    dead,   // its run is gone: the next run (or `reapcheck clean`) removes it
    free,   // a tracing instance kept for reuse that no process uses now (no run of its own)
  };
  std::string path;  // a path on the host, or tracefs:instances/NAME
  pid_t run = 0;     // the pid its name gives; 0 for a kept instance that no process holds
  State state = State::dead;
};

// The process holding an flock on `path` now, read from /proc/locks, so that looking takes no
// lock (a run making its directory at this moment is not disturbed); nullopt when none does or
// `path` is gone. /proc/locks leaves out the locks of processes this PID namespace cannot see:
// looked at from inside a container, a run outside it holds nothing.
std::optional<pid_t> flock_holder(const std::filesystem::path& path);

}  // namespace reapcheck
