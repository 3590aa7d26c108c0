// Cgroups as a case sees them: the case's own group, which members' cgroups nest in, and when a
// member's group has frozen.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>

namespace reapcheck {

// Moves this process (PID 1 of the case's sandbox) into a new group below `area`, the run's
// cgroup area, so that everything the case starts — and every group its members create below
// their own — is in the area, swept after the case. Returns the group; throws when it cannot.
std::string enter_case_cgroup(const std::string& area);

// Waits until `pid`'s cgroup reports "frozen 1" (cgroup.events raises POLLPRI on each change);
// false at the deadline.
bool await_frozen(pid_t pid, std::chrono::steady_clock::time_point deadline);

}  // namespace reapcheck
