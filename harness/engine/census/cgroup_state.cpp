#include "harness/engine/census/cgroup_state.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>

#include <fstream>

#include "reaper/os/cgroup_fs.h"
#include "reaper/os/deadline.h"
#include "reaper/os/sys_error.h"
#include "reaper/os/unique_fd.h"

namespace reapcheck {

std::string enter_case_cgroup(const std::string& area) {
  std::string group;
  for (int n = 0;; ++n) {
    group = area + "/case-" + std::to_string(n);
    if (::mkdir(group.c_str(), 0755) == 0) break;
    if (errno != EEXIST || n > 1000) reaper::throw_sys("create the case's cgroup " + group);
  }
  std::ofstream procs(group + "/cgroup.procs");
  procs << "0";
  procs.close();
  if (!procs) reaper::throw_sys("join the case's cgroup " + group);
  return group;
}

bool await_frozen(pid_t pid, std::chrono::steady_clock::time_point deadline) {
  const std::string group = reaper::cgroup_of(pid);
  if (group.empty()) return false;
  reaper::UniqueFd events(::open((group + "/cgroup.events").c_str(), O_RDONLY | O_CLOEXEC));
  if (!events) return false;
  while (!reaper::cgroup_frozen(pid)) {
    const auto left = reaper::time_left(deadline);
    if (left.count() <= 0) return false;
    pollfd p{events.get(), POLLPRI, 0};
    ::poll(&p, 1, static_cast<int>(left.count()));
  }
  return true;
}

}  // namespace reapcheck
