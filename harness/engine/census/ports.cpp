#include "harness/engine/census/ports.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "reaper/os/unique_fd.h"

namespace reapcheck {
namespace {

// Every listening TCP socket's inode → its port, from /proc/net/tcp and tcp6 (state 0A is
// LISTEN).
std::map<std::string, int> listening_sockets() {
  std::map<std::string, int> sockets;
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
      sockets.emplace(inode, std::stoi(local.substr(colon + 1), nullptr, 16));
    }
  }
  return sockets;
}

// Socket inodes listening on `port`.
std::set<std::string> listening_inodes(int port) {
  std::set<std::string> inodes;
  for (const auto& [inode, p] : listening_sockets()) {
    if (p == port) inodes.insert(inode);
  }
  return inodes;
}

// What the fd directory `fd_dir` holds: whether it lists any fd at all (not when it cannot be
// read), and the inodes of the sockets among them.
struct FdSockets {
  bool any = false;
  std::vector<std::string> inodes;
};

FdSockets sockets_in(const std::string& fd_dir) {
  FdSockets out;
  DIR* fds = ::opendir(fd_dir.c_str());
  if (fds == nullptr) return out;
  while (dirent* f = ::readdir(fds)) {
    if (f->d_name[0] == '.') continue;
    out.any = true;
    char target[64];
    const ssize_t n = ::readlink((fd_dir + "/" + f->d_name).c_str(), target, sizeof target - 1);
    if (n <= 0) continue;
    const std::string link(target, static_cast<size_t>(n));  // "socket:[12345]"
    if (link.rfind("socket:[", 0) == 0) out.inodes.push_back(link.substr(8, link.size() - 9));
  }
  ::closedir(fds);
  return out;
}

bool accepts(int family, int port) {
  reaper::UniqueFd s(::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!s) return false;
  sockaddr_storage storage{};
  socklen_t size = 0;
  if (family == AF_INET) {
    auto* a = reinterpret_cast<sockaddr_in*>(&storage);
    a->sin_family = AF_INET;
    a->sin_port = htons(static_cast<uint16_t>(port));
    a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    size = sizeof *a;
  } else {
    auto* a = reinterpret_cast<sockaddr_in6*>(&storage);
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(static_cast<uint16_t>(port));
    a->sin6_addr = in6addr_loopback;
    size = sizeof *a;
  }
  // Loopback answers at once: accepted, or refused with ECONNREFUSED.
  return ::connect(s.get(), reinterpret_cast<sockaddr*>(&storage), size) == 0;
}

enum class Holds { yes, no, no_fds };

// Whether the fd directory `fd_dir` has one of the socket `inodes` open; `no_fds` when it lists
// no fd at all (or cannot be read).
Holds holds_socket(const std::string& fd_dir, const std::set<std::string>& inodes) {
  const FdSockets fds = sockets_in(fd_dir);
  if (!fds.any) return Holds::no_fds;
  return std::any_of(fds.inodes.begin(), fds.inodes.end(),
                     [&](const std::string& i) { return inodes.count(i) != 0; })
             ? Holds::yes
             : Holds::no;
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

// A dev server on "localhost" may listen on [::1] alone (Node resolves it so): both are asked.
bool port_accepting(int port) {
  return accepts(AF_INET, port) || accepts(AF_INET6, port);
}

bool port_listening(int port) {
  return !listening_inodes(port).empty();
}

std::vector<std::pair<int, pid_t>> ports_held_by(const std::vector<pid_t>& pids) {
  const std::map<std::string, int> sockets = listening_sockets();
  std::map<int, pid_t> held;
  for (pid_t pid : pids) {
    for (const std::string& inode : sockets_in("/proc/" + std::to_string(pid) + "/fd").inodes) {
      if (auto it = sockets.find(inode); it != sockets.end()) held.emplace(it->second, pid);
    }
  }
  return {held.begin(), held.end()};
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
