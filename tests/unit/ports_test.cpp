#include "harness/engine/census/ports.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>

#include "reaper/os/backoff.h"
#include "reaper/os/proc_table.h"
#include "reaper/os/unique_fd.h"

namespace reapcheck {
namespace {

// A listener on an ephemeral loopback port; returns the port.
int listen_on_loopback(reaper::UniqueFd& fd) {
  fd.reset(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  EXPECT_EQ(::listen(fd.get(), 4), 0);
  socklen_t len = sizeof addr;
  ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&addr), &len);
  return ntohs(addr.sin_port);
}

TEST(Ports, AListenerAcceptsAndIsFoundAsTheHolder) {
  reaper::UniqueFd listener;
  const int port = listen_on_loopback(listener);
  EXPECT_TRUE(port_accepting(port));
  EXPECT_EQ(port_holder(port), ::getpid());
  listener.reset();
  EXPECT_FALSE(port_accepting(port));
  EXPECT_EQ(port_holder(port), 0);
}

// A multi-threaded server in the middle of its exit: its first thread has exited (a zombie, no
// fds listed under /proc/<pid>/fd) while another still holds the listener open. The restart
// check must find it and wait for it, not bind at once and call the EADDRINUSE evidence
// (vite-dev-server × unshare-kill-child was `late` so once).
TEST(Ports, AHolderWhoseFirstThreadHasExitedIsFound) {
  reaper::UniqueFd listener;
  const int port = listen_on_loopback(listener);
  const pid_t child = ::fork();
  if (child == 0) {
    pthread_t other;
    ::pthread_create(
        &other, nullptr,
        [](void*) -> void* {
          for (;;) ::pause();
        },
        nullptr);
    ::syscall(SYS_exit, 0);  // this thread only: the other keeps the fd table
  }
  ASSERT_GT(child, 0);
  listener.reset();  // the child's copy is the only one now
  reaper::Backoff backoff;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    const auto p = reaper::ProcTable::read_one(child, reaper::Detail::stat);
    if (p && p->state == 'Z') break;
    ASSERT_LT(std::chrono::steady_clock::now(), deadline)
        << "the child's first thread never exited";
    backoff.wait(deadline);
  }
  EXPECT_TRUE(port_accepting(port));
  EXPECT_EQ(port_holder(port), child);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  EXPECT_EQ(port_holder(port), 0);
}

}  // namespace
}  // namespace reapcheck
