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

enum class Holds { yes, no, no_fds };

// Whether the fd directory `fd_dir` has one of the socket `inodes` open; `no_fds` when it lists
// no fd at all (or cannot be read).
Holds holds_socket(const std::string& fd_dir, const std::set<std::string>& inodes) {
  DIR* fds = ::opendir(fd_dir.c_str());
  if (fds == nullptr) return Holds::no_fds;
  Holds out = Holds::no_fds;
  while (dirent* f = ::readdir(fds)) {
    if (f->d_name[0] == '.') continue;
    out = Holds::no;
    char target[64];
    const ssize_t n = ::readlink((fd_dir + "/" + f->d_name).c_str(), target, sizeof target - 1);
    if (n <= 0) continue;
    const std::string link(target, static_cast<size_t>(n));  // "socket:[12345]"
    if (link.rfind("socket:[", 0) == 0 && inodes.count(link.substr(8, link.size() - 9)) != 0) {
      out = Holds::yes;
      break;
    }
  }
  ::closedir(fds);
  return out;
}

// One of the threads of the process at `dir` (/proc/<pid>) has one of the sockets open.
bool any_thread_holds(const std::string& dir, const std::set<std::string>& inodes) {
  DIR* tasks = ::opendir((dir + "/task").c_str());
  if (tasks == nullptr) return false;
  bool found = false;
  while (dirent* t = ::readdir(tasks)) {
    if (t->d_name[0] == '.') continue;
    if (holds_socket(dir + "/task/" + t->d_name + "/fd", inodes) == Holds::yes) {
      found = true;
      break;
    }
  }
  ::closedir(tasks);
  return found;
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
    const std::string dir = "/proc/" + pid;
    const Holds holds = holds_socket(dir + "/fd", inodes);
    // A process whose first thread has exited shows no fds there, while its other threads (a
    // multi-threaded server in the middle of its exit) still hold them open: look at theirs.
    if (holds == Holds::yes || (holds == Holds::no_fds && any_thread_holds(dir, inodes))) {
      holder = static_cast<pid_t>(std::stol(pid));
      break;
    }
  }
  ::closedir(proc);
  return holder;
}

}  // namespace reapcheck
