#include "harness/engine/tree/restart_check.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

#include "harness/engine/census/activity.h"
#include "harness/engine/census/ports.h"
#include "reaper/os/deadline.h"
#include "reaper/os/pidfd.h"
#include "reaper/os/proc_table.h"
#include "reaper/os/unique_fd.h"

namespace reapcheck {
namespace {

// 0 when 127.0.0.1:port could be bound, else the errno bind() gave.
int bind_error(int port) {
  reaper::UniqueFd s(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!s) return errno;
  const int on = 1;
  ::setsockopt(s.get(), SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return ::bind(s.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 ? 0 : errno;
}

// Lets every process already on its way out finish, so the bind meets a settled world. A dying
// holder releases its port a moment later; and one in the middle of its exit has dropped its fd
// table before the kernel closes the socket, which its exit does later still: no scan of
// /proc/<pid>/fd finds it then, and a bind at that moment fails with no holder to name (seen in
// 2 of 10 runs of npm-dev-server × unshare-kill-child, whose tree dies with its namespace).
void let_the_dying_go(std::chrono::steady_clock::time_point deadline) {
  const reaper::ProcTable table = reaper::ProcTable::read("/proc", reaper::Detail::stat);
  for (const reaper::ProcInfo& p : table.all()) {
    if (p.pid == ::getpid() || !dying(p.pid)) continue;
    if (auto fd = reaper::pidfd_open(p.pid)) {
      reaper::pidfd_wait_exit(fd->get(), reaper::time_left(deadline));
    }
  }
}

}  // namespace

std::vector<RebindFailure> rebind_ports(const std::vector<std::pair<int, std::string>>& ports,
                                        std::chrono::steady_clock::time_point deadline) {
  std::vector<RebindFailure> out;
  if (ports.empty()) return out;
  let_the_dying_go(deadline);
  for (const auto& [port, role] : ports) {
    if (const int err = bind_error(port); err != 0) {
      out.push_back({port, role, ::strerrorname_np(err), port_holder(port)});
    }
  }
  return out;
}

}  // namespace reapcheck
