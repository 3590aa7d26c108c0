// A thread blocked waiting on descriptors, one of which is ready, is about to run. The waiter is
// stopped while it waits, so that it cannot run whatever happens: its syscall file still shows
// the wait, and only the readiness of what it waits on changes.
#include "harness/engine/census/awaited_fds.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>

#include "harness/engine/census/thread_wait.h"
#include "reaper/os/pidfd.h"
#include "reaper/os/read_file.h"
#include "reaper/os/sys_error.h"

namespace reapcheck {
namespace {

// The call a stopped process is blocked in, from its syscall file.
struct Blocked {
  long nr = -1;
  unsigned long long args[6] = {};
};

Blocked blocked_call(pid_t pid) {
  std::istringstream in(reaper::read_file("/proc/" + std::to_string(pid) + "/syscall"));
  Blocked b;
  in >> b.nr;
  for (auto& arg : b.args) {
    std::string hex;
    in >> hex;
    arg = std::strtoull(hex.c_str(), nullptr, 16);
  }
  return b;
}

// A child that runs `wait` (a blocking wait on descriptors it inherits), stopped once it is
// blocked in `nr`.
pid_t stopped_waiter(long nr, const std::function<void()>& wait) {
  const pid_t child = ::fork();
  if (child < 0) reaper::throw_sys("fork");
  if (child == 0) {
    wait();
    ::_exit(0);
  }
  // Blocked once its syscall file names the call; it is stopped there and stays in it.
  while (blocked_call(child).nr != nr) ::sched_yield();
  ::kill(child, SIGSTOP);
  siginfo_t info{};
  ::waitid(P_PID, static_cast<id_t>(child), &info, WSTOPPED);
  return child;
}

void end(pid_t child) {
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
}

bool ready(pid_t waiter) {
  const Blocked b = blocked_call(waiter);
  return awaited_ready(waiter, waiter, b.nr, b.args);
}

// The helper of kills-after-exit's kind: select() on the pidfd of a process it outlives.
TEST(AwaitedFds, ASelectOnAPidfdIsOverOnceItsProcessHasExited) {
  const pid_t outlived = ::fork();
  if (outlived == 0) {
    ::pause();
    ::_exit(0);
  }
  const auto pidfd = reaper::pidfd_open(outlived);
  ASSERT_TRUE(pidfd);
  const int fd = pidfd->get();
  const pid_t waiter = stopped_waiter(SYS_pselect6, [fd] {
    fd_set in;
    FD_ZERO(&in);
    FD_SET(fd, &in);
    ::select(fd + 1, &in, nullptr, nullptr, nullptr);
  });
  EXPECT_FALSE(ready(waiter));  // the negative control: the outlived process runs on
  end(outlived);
  EXPECT_TRUE(ready(waiter));
  end(waiter);
}

TEST(AwaitedFds, APollOrEpollOfAPipeIsOverOnceItHasData) {
  for (long nr : {SYS_poll, SYS_epoll_wait}) {
    int p[2];
    ASSERT_EQ(::pipe(p), 0);
    const int epoll = ::epoll_create1(0);
    epoll_event ev{EPOLLIN, {}};
    ASSERT_EQ(::epoll_ctl(epoll, EPOLL_CTL_ADD, p[0], &ev), 0);
    const pid_t waiter = stopped_waiter(nr, [&] {
      pollfd pfd{p[0], POLLIN, 0};
      epoll_event out{};
      if (nr == SYS_poll) ::poll(&pfd, 1, -1);
      if (nr == SYS_epoll_wait) ::epoll_wait(epoll, &out, 1, -1);
    });
    EXPECT_FALSE(ready(waiter)) << nr;  // the negative control: nothing written yet
    ASSERT_EQ(::write(p[1], "x", 1), 1);
    EXPECT_TRUE(ready(waiter)) << nr;
    char byte = 0;
    ASSERT_EQ(::read(p[0], &byte, 1), 1);
    EXPECT_FALSE(ready(waiter)) << nr;  // read here: empty again, the wait is on
    end(waiter);
    ::close(p[0]);
    ::close(p[1]);
    ::close(epoll);
  }
}

// A thread stopped in read() is outside the call until it is continued (its syscall file reads
// -1): the call is given as the file would show it, for a process that holds the pipe. Its last
// writer gone, a read ends (at end of file), as a helper's does when the command that held the
// other end of its pipe exits.
TEST(AwaitedFds, AReadOfAPipeIsOverOnceItHasDataOrNoWriterLeft) {
  int p[2];
  int closed[2];
  ASSERT_EQ(::pipe(p), 0);
  ASSERT_EQ(::pipe(closed), 0);
  const pid_t holder = ::fork();
  if (holder == 0) {
    ::close(p[1]);
    (void)!::write(closed[1], "x", 1);  // its copy of the write end is closed
    ::pause();
    ::_exit(0);
  }
  char closing = 0;
  ASSERT_EQ(::read(closed[0], &closing, 1), 1);
  ::close(closed[0]);
  ::close(closed[1]);
  const unsigned long long read_call[6] = {static_cast<unsigned long long>(p[0]), 0, 1};
  EXPECT_FALSE(awaited_ready(holder, holder, SYS_read, read_call));
  ASSERT_EQ(::write(p[1], "x", 1), 1);
  EXPECT_TRUE(awaited_ready(holder, holder, SYS_read, read_call));
  char byte = 0;
  ASSERT_EQ(::read(p[0], &byte, 1), 1);
  EXPECT_FALSE(awaited_ready(holder, holder, SYS_read, read_call));
  ::close(p[1]);  // the holder closed its copy: no writer is left
  EXPECT_TRUE(awaited_ready(holder, holder, SYS_read, read_call));
  end(holder);
  ::close(p[0]);
}

// A socket is never copied here, ready or not: a copy would hold a listening port a moment past
// its owner's death, and make the harness its holder.
TEST(AwaitedFds, ASocketIsNotPolledFromHere) {
  int s[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, s), 0);
  const pid_t holder = ::fork();
  if (holder == 0) {
    ::pause();
    ::_exit(0);
  }
  ASSERT_EQ(::write(s[1], "x", 1), 1);  // s[0] is readable: a read of it would end
  const unsigned long long read_call[6] = {static_cast<unsigned long long>(s[0]), 0, 1};
  EXPECT_FALSE(awaited_ready(holder, holder, SYS_read, read_call));
  end(holder);
  ::close(s[0]);
  ::close(s[1]);
}

// Through thread_wait(): a wait that is over is no wait, whatever its timeout.
TEST(AwaitedFds, AThreadWhoseWaitIsOverIsRunning) {
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  const pid_t waiter = stopped_waiter(SYS_poll, [&] {
    pollfd pfd{p[0], POLLIN, 0};
    ::poll(&pfd, 1, -1);
  });
  const std::string task = "/proc/" + std::to_string(waiter) + "/task/" + std::to_string(waiter);
  EXPECT_EQ(thread_wait(task, std::nullopt), Wait::forever);
  ASSERT_EQ(::write(p[1], "x", 1), 1);
  EXPECT_EQ(thread_wait(task, std::nullopt), Wait::running);
  end(waiter);
  ::close(p[0]);
  ::close(p[1]);
}

}  // namespace
}  // namespace reapcheck
