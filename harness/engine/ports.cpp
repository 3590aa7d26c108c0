#include "harness/engine/ports.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "reaper/os/unique_fd.h"

namespace reapcheck {
namespace {

// Socket inodes listening on `port`, from /proc/net/tcp and tcp6 (state 0A is LISTEN).
std::set<std::string> listening_inodes(int port) {
  std::set<std::string> inodes;
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::ifstream in(table);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      std::istringstream f(line);
      std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
      f >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >> timeout >>
          inode;
      const auto colon = local.rfind(':');
      if (state != "0A" || colon == std::string::npos) continue;
      if (std::stoi(local.substr(colon + 1), nullptr, 16) == port) inodes.insert(inode);
    }
  }
  return inodes;
}

}  // namespace

bool port_accepting(int port) {
  reaper::UniqueFd s(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!s) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  // Loopback answers at once: accepted, or refused with ECONNREFUSED.
  return ::connect(s.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
}

pid_t port_holder(int port) {
  const std::set<std::string> inodes = listening_inodes(port);
  if (inodes.empty()) return 0;
  // Plain readdir: on a busy host processes vanish mid-scan, and each such error must only skip
  // that process.
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return 0;
  pid_t holder = 0;
  while (dirent* p = ::readdir(proc)) {
    const std::string pid = p->d_name;
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string fd_dir = "/proc/" + pid + "/fd";
    DIR* fds = ::opendir(fd_dir.c_str());
    if (fds == nullptr) continue;
    while (dirent* f = ::readdir(fds)) {
      char target[64];
      ssize_t n = ::readlink((fd_dir + "/" + f->d_name).c_str(), target, sizeof target - 1);
      if (n <= 0) continue;
      const std::string link(target, static_cast<size_t>(n));  // "socket:[12345]"
      if (link.rfind("socket:[", 0) == 0 && inodes.count(link.substr(8, link.size() - 9)) != 0) {
        holder = static_cast<pid_t>(std::stol(pid));
        break;
      }
    }
    ::closedir(fds);
    if (holder != 0) break;
  }
  ::closedir(proc);
  return holder;
}

}  // namespace reapcheck
