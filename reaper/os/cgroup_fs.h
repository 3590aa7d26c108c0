// cgroup v2 groups: where this process may create them, and when one has emptied.
#pragma once

#include <chrono>
#include <string>

namespace reaper {

// This process's own cgroup on the cgroup2 mount; empty
// when no cgroup2 hierarchy is mounted.
std::string cgroup_home();

// Waits until no process is left in `cgroup` or below it ("populated 0", which cgroup.events
// announces through poll()), or `timeout` passes; returns whether it emptied. Throws when
// `cgroup` cannot be read.
bool wait_empty(const std::string& cgroup, std::chrono::milliseconds timeout);

}  // namespace reaper
