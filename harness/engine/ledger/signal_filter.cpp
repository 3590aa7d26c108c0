#include "harness/engine/ledger/signal_filter.h"

#include <seccomp.h>
#include <sys/socket.h>

#include <array>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "reaper/os/pidfd.h"
#include "reaper/os/sys_error.h"

namespace reapcheck {
namespace {

constexpr std::array kSignalCalls = {
    "kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_send_signal"};

// The calls that act on another process without a signal (signal_call.h records them): each
// notified only where it can reach another process, so that a tree's calls on itself (a
// getrlimit, a nice) cost it nothing. `nonzero`: the arguments that must not be 0 (-1: none).
struct Act {
  const char* name;
  std::array<int, 2> nonzero;
};
constexpr std::array kActs = {
    Act{"ptrace", {0, -1}},  // PTRACE_TRACEME (0) is the caller's own
    Act{"process_vm_writev", {-1, -1}},
    Act{"pidfd_getfd", {-1, -1}},
    Act{"process_madvise", {-1, -1}},
    Act{"prlimit64", {0, 2}},  // another process (pid 0 is the caller), with a new limit
    Act{"setpriority", {-1, -1}},
    Act{"ioprio_set", {-1, -1}},
    Act{"sched_setattr", {0, -1}},
    Act{"sched_setscheduler", {0, -1}},
    Act{"sched_setparam", {0, -1}},
    Act{"sched_setaffinity", {0, -1}},
};

// Adds the notify rule for `name`, with `conditions`; an error text, or empty.
std::string notify(void* ctx, const char* name, const std::vector<scmp_arg_cmp>& conditions) {
  const int nr = seccomp_syscall_resolve_name(name);
  if (nr == __NR_SCMP_ERROR) return std::string("seccomp does not know ") + name;
  const auto count = static_cast<unsigned>(conditions.size());
  if (const int rc = seccomp_rule_add_array(ctx, SCMP_ACT_NOTIFY, nr, count, conditions.data());
      rc != 0) {
    return std::string("seccomp_rule_add(") + name + "): " + std::strerror(-rc);
  }
  return {};
}

struct ContextDeleter {
  void operator()(void* ctx) const { seccomp_release(ctx); }
};

}  // namespace

std::variant<reaper::UniqueFd, std::string> install_signal_filter(bool hold_exits) {
  std::unique_ptr<void, ContextDeleter> ctx(seccomp_init(SCMP_ACT_ALLOW));
  if (!ctx) return std::string("seccomp_init failed");
  for (const char* name : kSignalCalls) {
    if (std::string error = notify(ctx.get(), name, {}); !error.empty()) return error;
  }
  for (const Act& act : kActs) {
    std::vector<scmp_arg_cmp> conditions;
    for (int arg : act.nonzero) {
      if (arg >= 0) conditions.push_back({static_cast<unsigned>(arg), SCMP_CMP_NE, 0, 0});
    }
    if (std::string error = notify(ctx.get(), act.name, conditions); !error.empty()) return error;
  }
  if (hold_exits) {
    if (std::string error = notify(ctx.get(), "exit_group", {}); !error.empty()) return error;
  }
  if (const int rc = seccomp_load(ctx.get()); rc != 0) {
    return std::string("seccomp_load: ") + std::strerror(-rc);
  }
  const int fd = seccomp_notify_fd(ctx.get());
  if (fd < 0) return std::string("seccomp_notify_fd: ") + std::strerror(-fd);
  return reaper::UniqueFd(fd);
}

void send_listener(int socket, const std::variant<reaper::UniqueFd, std::string>& listener) {
  const auto* fd = std::get_if<reaper::UniqueFd>(&listener);
  const std::string text = fd != nullptr ? "L" : "E" + std::get<std::string>(listener);
  iovec iov{const_cast<char*>(text.data()), text.size()};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  if (fd != nullptr) {
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    const int raw = fd->get();
    std::memcpy(CMSG_DATA(c), &raw, sizeof raw);
  }
  if (::sendmsg(socket, &msg, MSG_NOSIGNAL) < 0) reaper::throw_sys("send the ledger's listener");
}

std::variant<reaper::UniqueFd, std::string> receive_listener(
    int socket, std::chrono::steady_clock::time_point deadline) {
  const auto left = deadline - std::chrono::steady_clock::now();
  if (!reaper::wait_readable(socket, std::chrono::duration_cast<std::chrono::milliseconds>(left))) {
    return std::string("the reaper host did not hand over the ledger's listener in time");
  }
  char text[512];
  iovec iov{text, sizeof text};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  const ssize_t n = ::recvmsg(socket, &msg, MSG_CMSG_CLOEXEC);
  if (n <= 0) return std::string("the reaper host exited before handing over the listener");
  if (text[0] != 'L') return std::string(text + 1, static_cast<size_t>(n - 1));
  const cmsghdr* c = CMSG_FIRSTHDR(&msg);
  if (c == nullptr || c->cmsg_type != SCM_RIGHTS) {
    return std::string("the reaper host's message carried no listener");
  }
  int fd = -1;
  std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
  return reaper::UniqueFd(fd);
}

}  // namespace reapcheck
