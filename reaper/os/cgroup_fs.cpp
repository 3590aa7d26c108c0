#include "reaper/os/cgroup_fs.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "reaper/os/deadline.h"
#include "reaper/os/sys_error.h"
#include "reaper/os/unique_fd.h"

namespace reaper {

std::string cgroup_home() {
  std::ifstream mounts("/proc/self/mountinfo");
  std::string line, mount_point;
  while (std::getline(mounts, line)) {
    // "... - cgroup2 cgroup2 rw": the mount point is the fifth field.
    if (line.find(" - cgroup2 ") == std::string::npos) continue;
    std::istringstream in(line);
    std::string field;
    for (int i = 0; i < 5 && in >> field; ++i) mount_point = field;
    break;
  }
  if (mount_point.empty()) return {};
  std::ifstream self("/proc/self/cgroup");
  while (std::getline(self, line)) {
    if (line.rfind("0::", 0) == 0) {
      std::string path = mount_point + line.substr(3);
      while (path.size() > 1 && path.back() == '/') path.pop_back();
      return path;
    }
  }
  return mount_point;
}

namespace {

// Reads cgroup.events through `fd` itself: kernfs marks a change seen only for the open file that
// reads it, so a poll() on an fd that is never read would return at once for ever.
bool populated(int fd) {
  char buf[256];
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return false;
  buf[n] = '\0';
  return std::strstr(buf, "populated 1") != nullptr;
}

}  // namespace

// cgroup.events raises POLLPRI on every change.
bool wait_empty(const std::string& cgroup, std::chrono::milliseconds timeout) {
  UniqueFd events(::open((cgroup + "/cgroup.events").c_str(), O_RDONLY | O_CLOEXEC));
  if (!events) throw_sys("open " + cgroup + "/cgroup.events");
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (populated(events.get())) {
    auto left = time_left(deadline);
    if (left.count() <= 0) return false;
    pollfd p{events.get(), POLLPRI, 0};
    ::poll(&p, 1, static_cast<int>(left.count()));
  }
  return true;
}

}  // namespace reaper
