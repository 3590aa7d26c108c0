#include "ports.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "reaper/unique_fd.h"

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
  std::error_code ec;
  for (const auto& proc : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = proc.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    for (const auto& fd : std::filesystem::directory_iterator(proc.path() / "fd", ec)) {
      const std::string target = std::filesystem::read_symlink(fd.path(), ec).string();
      // "socket:[12345]"
      if (target.rfind("socket:[", 0) == 0 &&
          inodes.count(target.substr(8, target.size() - 9)) != 0) {
        return static_cast<pid_t>(std::stol(name));
      }
    }
  }
  return 0;
}

}  // namespace reapcheck
