// Breadth-first descent through parent links, shared by every reaper that walks a snapshot.
#pragma once

#include <sys/types.h>

#include <unordered_map>
#include <vector>

namespace reaper {

using ChildMap = std::unordered_map<pid_t, std::vector<pid_t>>;

// Every pid reachable from `root` in `children`, breadth first, root excluded.
std::vector<pid_t> walk_descendants(const ChildMap& children, pid_t root);

}  // namespace reaper
