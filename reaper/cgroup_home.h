// Where this process may create cgroup v2 groups.
#pragma once

#include <string>

namespace reaper {

// $REAPCHECK_CGROUP_PARENT if set, else this process's own cgroup on the cgroup2 mount; empty
// when no cgroup2 hierarchy is mounted.
std::string cgroup_home();

}  // namespace reaper
