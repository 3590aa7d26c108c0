#include "harness/engine/ports.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

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

}  // namespace
}  // namespace reapcheck
