#include "reaper/os/cgroup_fs.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "reaper/os/deadline.h"
#include "reaper/os/read_file.h"
#include "reaper/os/sys_error.h"
#include "reaper/os/unique_fd.h"

namespace reaper {

std::string cgroup2_mount() {
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
  return mount_point;
}

namespace {

// The cgroup `proc_cgroup` (a /proc/<pid>/cgroup file) names on `mount`; `mount` itself when it
// names none.
std::string cgroup_in(const std::string& mount, const std::string& proc_cgroup) {
  std::istringstream lines(proc_cgroup);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("0::", 0) == 0) {
      std::string path = mount + line.substr(3);
      while (path.size() > 1 && path.back() == '/') path.pop_back();
      return path;
    }
  }
  return mount;
}

}  // namespace

std::string cgroup_home() {
  const std::string mount = cgroup2_mount();
  return mount.empty() ? mount : cgroup_in(mount, read_file("/proc/self/cgroup"));
}

std::string cgroup_of(pid_t pid) {
  const std::string mount = cgroup2_mount();
  const std::string mine = read_file("/proc/" + std::to_string(pid) + "/cgroup");
  return mount.empty() || mine.empty() ? std::string() : cgroup_in(mount, mine);
}

bool cgroup_frozen(pid_t pid) {
  const std::string group = cgroup_of(pid);
  return !group.empty() &&
         read_file(group + "/cgroup.events").find("frozen 1") != std::string::npos;
}

bool cgroup_freeze_asked(pid_t pid) {
  const std::string mount = cgroup2_mount();
  std::string group = cgroup_of(pid);
  if (mount.empty() || group.rfind(mount, 0) != 0) return false;
  // The root group has no cgroup.freeze: up to the one below it.
  for (; group.size() > mount.size(); group.erase(group.rfind('/'))) {
    if (read_file(group + "/cgroup.freeze").rfind('1', 0) == 0) return true;
  }
  return false;
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
