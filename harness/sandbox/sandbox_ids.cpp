#include "harness/sandbox/sandbox_ids.h"

#include <fcntl.h>
#include <grp.h>
#include <unistd.h>

#include <string>

#include "reaper/os/sys_error.h"
#include "reaper/os/unique_fd.h"

namespace reapcheck {
namespace {

void write_at(int dir_fd, const std::string& path, const std::string& text) {
  reaper::UniqueFd fd(::openat(dir_fd, path.c_str(), O_WRONLY | O_CLOEXEC));
  if (!fd) reaper::throw_sys("open /proc/" + path);
  if (::write(fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    reaper::throw_sys("write /proc/" + path + " (" + text.substr(0, text.size() - 1) + ")");
  }
}

}  // namespace

void map_root(int proc_fd, pid_t pid, SandboxIds ids) {
  const std::string dir = std::to_string(pid);
  write_at(proc_fd, dir + "/uid_map", "0 " + std::to_string(ids.uid) + " 1\n");
  write_at(proc_fd, dir + "/gid_map", "0 " + std::to_string(ids.gid) + " 1\n");
}

void become_namespace_root() {
  if (::setresgid(0, 0, 0) != 0) reaper::throw_sys("setresgid(0) in the sandbox's user namespace");
  if (::setresuid(0, 0, 0) != 0) reaper::throw_sys("setresuid(0) in the sandbox's user namespace");
}

}  // namespace reapcheck
