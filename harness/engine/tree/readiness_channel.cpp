#include "harness/engine/tree/readiness_channel.h"

#include <fmt/format.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <sstream>

#include "reaper/os/deadline.h"
#include "reaper/os/proc_table.h"
#include "reaper/os/sys_error.h"

namespace reapcheck {
namespace {

// The last NSpid entry: the pid in the process's own, innermost, namespace.
pid_t innermost_pid(const Processes& processes, pid_t pid) {
  std::istringstream in(processes.status_field(pid, "NSpid"));
  pid_t p = 0, last = 0;
  while (in >> p) last = p;
  return last;
}

}  // namespace

ReadinessChannel::ReadinessChannel(const std::string& socket_path) : socket_path_(socket_path) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0) {
    reaper::throw_sys("socketpair");
  }
  reader_.reset(fds[0]);
  writer_.reset(fds[1]);
  int on = 1;
  if (::setsockopt(reader_.get(), SOL_SOCKET, SO_PASSCRED, &on, sizeof on) != 0) {
    reaper::throw_sys("SO_PASSCRED");
  }
  ::shutdown(writer_.get(), SHUT_RD);  // one-way: members only write
  if (socket_path_.empty()) return;
  listener_.reset(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (!listener_) reaper::throw_sys("readiness socket");
  if (socket_path_.size() >= sizeof addr.sun_path) {
    throw std::runtime_error(fmt::format(
        "the readiness socket's path {} is {} bytes, over the {} a Unix socket's may have",
        socket_path_, socket_path_.size(), sizeof addr.sun_path - 1));
  }
  std::memcpy(addr.sun_path, socket_path_.c_str(), socket_path_.size() + 1);
  if (::bind(listener_.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listener_.get(), 128) != 0) {
    reaper::throw_sys("listen on " + socket_path_);
  }
}

// A connected member's line, complete once it has sent a newline or closed.
bool ReadinessChannel::next_from_connection(Message& m) {
  for (auto it = connections_.begin(); it != connections_.end(); ++it) {
    char buf[512];
    ssize_t n = ::read(it->fd.get(), buf, sizeof buf);
    if (n > 0) it->buffer.append(buf, static_cast<size_t>(n));
    auto nl = it->buffer.find('\n');
    if (nl == std::string::npos && n != 0) continue;
    m = {LineReader::Status::line, it->buffer.substr(0, nl), it->peer};
    connections_.erase(it);  // one line per connection
    return !m.line.empty();
  }
  return false;
}

ReadinessChannel::Message ReadinessChannel::next(std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    auto left = reaper::time_left(deadline);
    std::vector<pollfd> fds = {{reader_.get(), POLLIN, 0}};
    if (listener_) fds.push_back({listener_.get(), POLLIN, 0});
    for (const auto& c : connections_) fds.push_back({c.fd.get(), POLLIN, 0});
    int rc = ::poll(fds.data(), fds.size(), static_cast<int>(left.count()));
    if (rc < 0 && errno == EINTR) continue;
    if (rc < 0) reaper::throw_sys("poll(readiness)");
    if (rc == 0) return {LineReader::Status::timeout, {}, 0};
    if (listener_ && (fds[1].revents & POLLIN)) {
      // The kernel records the connecting process, translated into our namespace.
      while (true) {
        reaper::UniqueFd conn(
            ::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
        if (!conn) break;
        ucred cred{};
        socklen_t len = sizeof cred;
        ::getsockopt(conn.get(), SOL_SOCKET, SO_PEERCRED, &cred, &len);
        connections_.push_back({std::move(conn), cred.pid, {}});
      }
    }
    Message from_connection;
    if (next_from_connection(from_connection)) return from_connection;
    if (!(fds[0].revents & (POLLIN | POLLHUP))) continue;

    char buf[512];
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))];
    iovec iov{buf, sizeof buf};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    ssize_t n = ::recvmsg(reader_.get(), &msg, MSG_CMSG_CLOEXEC);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) reaper::throw_sys("recvmsg(readiness)");
    if (n == 0) return {LineReader::Status::eof, {}, 0};
    Message m{LineReader::Status::line, std::string(buf, static_cast<size_t>(n)), 0};
    while (!m.line.empty() && m.line.back() == '\n') m.line.pop_back();
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
        ucred cred;
        std::memcpy(&cred, CMSG_DATA(c), sizeof cred);
        m.sender = cred.pid;
      }
    }
    return m;
  }
}

pid_t translate_announced_pid(const Processes& processes, pid_t announced, pid_t sender) {
  if (sender <= 0) return 0;
  if (innermost_pid(processes, sender) == announced) return sender;
  const reaper::ProcTable table = processes.table(reaper::Detail::stat);
  if (const auto* self = table.find(sender);
      self != nullptr && self->ppid > 0 && innermost_pid(processes, self->ppid) == announced) {
    return self->ppid;
  }
  for (const auto& p : table.all()) {
    if (p.ppid == sender && innermost_pid(processes, p.pid) == announced) return p.pid;
  }
  return 0;
}

}  // namespace reapcheck
