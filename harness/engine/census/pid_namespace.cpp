#include "harness/engine/census/pid_namespace.h"

#include <fcntl.h>
#include <linux/nsfs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include <cstdlib>
#include <string>
#include <string_view>

#include "reaper/os/proc_table.h"
#include "reaper/os/unique_fd.h"

namespace reapcheck {
namespace {

// The last number of an "NSpid:"-style line: the id in the process's own namespace.
pid_t innermost(const std::string& line) {
  const size_t at = line.find_last_of(" \t");
  return static_cast<pid_t>(
      std::strtol(line.c_str() + (at == std::string::npos ? 0 : at + 1), nullptr, 10));
}

// Translates a pid of the namespace whose fd is given into the reader's (Linux 6.11; Debian 12's
// headers predate it).
#ifndef NS_GET_PID_FROM_PIDNS
constexpr unsigned long NS_GET_PID_FROM_PIDNS = _IOR(NSIO, 0x6, int);  // NOLINT
#endif

// How deep namespaces may nest (the kernel's MAX_PID_NS_LEVEL).
constexpr int kMaxLevels = 32;

ino_t inode_of(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 ? st.st_ino : 0;
}

reaper::UniqueFd namespace_fd(const std::string& path) {
  return reaper::UniqueFd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
}

// The namespace's inode, from the link's target: one stat, no fd.
ino_t inode_at(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

}  // namespace

ino_t pid_namespace_of(pid_t pid) {
  return inode_at("/proc/" + std::to_string(pid) + "/ns/pid");
}

// Read each time, not kept: a process that clones a sandbox's PID namespace hands its memory to a
// process of another namespace.
ino_t own_pid_namespace() {
  return inode_at("/proc/self/ns/pid");
}

// Each level is asked through the namespace's own fd (NS_GET_PID_FROM_PIDNS for its pid 1,
// NS_GET_PARENT for the next level up), so no walk of /proc is needed.
std::vector<NamespaceLevel> enclosing_namespaces(pid_t pid) {
  std::vector<NamespaceLevel> out;
  const ino_t own = own_pid_namespace();
  const std::string path = "/proc/" + std::to_string(pid) + "/ns/pid";
  if (own == 0 || inode_at(path) == own) return out;  // ours, as most are: nothing to open
  reaper::UniqueFd ns = namespace_fd(path);
  for (int level = 0; ns && own != 0 && level < kMaxLevels; ++level) {
    const ino_t inode = inode_of(ns.get());
    if (inode == 0 || inode == own) break;
    const int init = ::ioctl(ns.get(), NS_GET_PID_FROM_PIDNS, 1);
    out.push_back({inode, init > 0 ? init : 0});
    ns = reaper::UniqueFd(::ioctl(ns.get(), NS_GET_PARENT));
  }
  return out;
}

pid_t in_our_namespace(pid_t sender, pid_t id, const char* field) {
  const ino_t theirs = pid_namespace_of(sender);
  if (theirs == 0 || theirs == own_pid_namespace()) return id;
  const reaper::ProcTable table = reaper::ProcTable::read("/proc", reaper::Detail::stat);
  for (const auto& p : table.all()) {
    if (pid_namespace_of(p.pid) != theirs) continue;
    if (innermost(reaper::status_field(p.pid, field)) != id) continue;
    return std::string_view(field) == "NSpgid" ? p.pgid : p.pid;
  }
  return 0;  // nothing there by that id
}

}  // namespace reapcheck
