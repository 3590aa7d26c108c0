// cgroup v2 groups: where this process may create them, and when one has emptied.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>

namespace reaper {

// Where cgroup2 is mounted, from this process's mountinfo; empty when it is not.
std::string cgroup2_mount();

// This process's own cgroup on the cgroup2 mount; empty
// when no cgroup2 hierarchy is mounted.
std::string cgroup_home();

// The cgroup v2 directory of process `pid`; empty when it cannot be read.
std::string cgroup_of(pid_t pid);

// Whether `pid` sits in a frozen cgroup (cgroup.freeze, "frozen 1" in cgroup.events): it runs
// nothing, its signal handlers and stops included, until thawed; a fatal signal still ends it.
bool cgroup_frozen(pid_t pid);

// Whether `pid`'s cgroup, or one above it, is asked to freeze (its cgroup.freeze holds 1): frozen,
// or about to be. "frozen 1" waits for every task of the group to reach the freezer, which one
// not scheduled since the request, on a loaded machine, has not.
bool cgroup_freeze_asked(pid_t pid);

// Waits until no process is left in `cgroup` or below it ("populated 0", which cgroup.events
// announces through poll()), or `timeout` passes; returns whether it emptied. Throws when
// `cgroup` cannot be read.
bool wait_empty(const std::string& cgroup, std::chrono::milliseconds timeout);

}  // namespace reaper
