#include "harness/engine/restart_check.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstring>

#include "harness/engine/activity.h"
#include "harness/engine/ports.h"
#include "reaper/os/deadline.h"
#include "reaper/os/pidfd.h"
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

// Lets a holder that is already on its way out finish, so the bind meets a settled world.
void let_dying_holder_go(int port, std::chrono::steady_clock::time_point deadline) {
  const pid_t holder = port_holder(port);
  if (holder == 0 || !dying(holder)) return;
  if (auto fd = reaper::pidfd_open(holder)) {
    reaper::pidfd_wait_exit(fd->get(), reaper::time_left(deadline));
  }
}

}  // namespace

std::vector<RebindFailure> rebind_ports(const std::vector<std::pair<int, std::string>>& ports,
                                        std::chrono::steady_clock::time_point deadline) {
  std::vector<RebindFailure> out;
  for (const auto& [port, role] : ports) {
    let_dying_holder_go(port, deadline);
    if (const int err = bind_error(port); err != 0) {
      out.push_back({port, role, ::strerrorname_np(err), port_holder(port)});
    }
  }
  return out;
}

}  // namespace reapcheck
