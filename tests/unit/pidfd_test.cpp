#include "reaper/os/pidfd.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "reaper/os/unique_fd.h"

namespace reaper {
namespace {

// A child that waits to be killed.
pid_t paused_child() {
  const pid_t pid = ::fork();
  if (pid == 0) {
    for (;;) ::pause();
  }
  return pid;
}

TEST(SignalFdTarget, NamesAPidfdsProcessAndAProcDirectorysToo) {
  const pid_t child = paused_child();
  ASSERT_GT(child, 0);
  const auto pidfd = pidfd_open(child);
  ASSERT_TRUE(pidfd);
  const UniqueFd dir(::open(("/proc/" + std::to_string(child)).c_str(), O_DIRECTORY | O_CLOEXEC));
  ASSERT_TRUE(dir);
  const UniqueFd other(::open("/proc", O_DIRECTORY | O_CLOEXEC));  // a directory, no process's
  ASSERT_TRUE(other);

  const auto by_pidfd = signal_fd_target(::getpid(), pidfd->get());
  ASSERT_TRUE(by_pidfd);
  EXPECT_EQ(by_pidfd->pid, child);
  EXPECT_FALSE(by_pidfd->proc_dir);
  const auto by_dir = signal_fd_target(::getpid(), dir.get());
  ASSERT_TRUE(by_dir);
  EXPECT_EQ(by_dir->pid, child);
  EXPECT_TRUE(by_dir->proc_dir);
  EXPECT_FALSE(signal_fd_target(::getpid(), other.get()));
  EXPECT_FALSE(signal_fd_target(::getpid(), STDIN_FILENO));

  // Once the child is reaped its number is free: the directory no longer names anyone.
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  const auto gone = signal_fd_target(::getpid(), dir.get());
  ASSERT_TRUE(gone);
  EXPECT_EQ(gone->pid, -1);
  EXPECT_TRUE(gone->proc_dir);
}

}  // namespace
}  // namespace reaper
