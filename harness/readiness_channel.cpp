#include "readiness_channel.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

#include "reaper/deadline.h"
#include "reaper/proc_table.h"
#include "reaper/sys_error.h"

namespace reapcheck {
namespace {

// The last NSpid entry: the pid in the process's own, innermost, namespace.
pid_t innermost_pid(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("NSpid:", 0) != 0) continue;
    std::istringstream in(line.substr(6));
    pid_t p = 0, last = 0;
    while (in >> p) last = p;
    return last;
  }
  return 0;
}

}  // namespace

ReadinessChannel::ReadinessChannel() {
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
}

ReadinessChannel::Message ReadinessChannel::next(std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    auto left = reaper::time_left(deadline);
    pollfd p{reader_.get(), POLLIN, 0};
    int rc = ::poll(&p, 1, static_cast<int>(left.count()));
    if (rc < 0 && errno == EINTR) continue;
    if (rc < 0) reaper::throw_sys("poll(readiness)");
    if (rc == 0) return {LineReader::Status::timeout, {}, 0};

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

pid_t translate_announced_pid(pid_t announced, pid_t sender) {
  if (sender <= 0) return 0;
  if (innermost_pid(sender) == announced) return sender;
  const reaper::ProcTable table = reaper::ProcTable::read("/proc", reaper::Detail::stat);
  for (const auto& p : table.all()) {
    if (p.ppid == sender && innermost_pid(p.pid) == announced) return p.pid;
  }
  return 0;
}

}  // namespace reapcheck
