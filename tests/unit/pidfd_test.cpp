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

// A grandchild, which its parent (this process's child) reaps only when told: how it ended is
// known from its pidfd while it is a zombie, as after it is reaped.
TEST(PidfdExitStatus, KnownOnceItHasExitedWhetherItsParentHasReapedItOrNot) {
  const Pipe go = make_pipe();    // the grandchild exits at a byte
  const Pipe reap = make_pipe();  // its parent reaps it at a byte, and exits at another
  const Pipe told = make_pipe();  // the grandchild's pid, then a byte once it is reaped
  const pid_t parent = ::fork();
  ASSERT_GE(parent, 0);
  if (parent == 0) {
    const pid_t grandchild = ::fork();
    char c = 0;
    if (grandchild == 0) {
      (void)!::read(go.read.get(), &c, 1);
      ::_exit(3);
    }
    (void)!::write(told.write.get(), &grandchild, sizeof grandchild);
    (void)!::read(reap.read.get(), &c, 1);
    ::waitpid(grandchild, nullptr, 0);
    (void)!::write(told.write.get(), &c, 1);
    (void)!::read(reap.read.get(), &c, 1);
    ::_exit(0);
  }
  pid_t grandchild = 0;
  ASSERT_EQ(::read(told.read.get(), &grandchild, sizeof grandchild), sizeof grandchild);
  const auto pidfd = pidfd_open(grandchild);
  ASSERT_TRUE(pidfd);
  EXPECT_FALSE(pidfd_exit_status(pidfd->get()));  // it runs

  char c = 'x';
  ASSERT_EQ(::write(go.write.get(), &c, 1), 1);
  ASSERT_TRUE(pidfd_wait_exit(pidfd->get(), std::chrono::seconds(30)));
  const auto zombie = pidfd_exit_status(pidfd->get());
  ASSERT_TRUE(zombie);
  EXPECT_TRUE(WIFEXITED(*zombie));
  EXPECT_EQ(WEXITSTATUS(*zombie), 3);

  ASSERT_EQ(::write(reap.write.get(), &c, 1), 1);
  ASSERT_EQ(::read(told.read.get(), &c, 1), 1);
  const auto reaped = pidfd_exit_status(pidfd->get());
  ASSERT_TRUE(reaped);
  EXPECT_EQ(*reaped, *zombie);

  ASSERT_EQ(::write(reap.write.get(), &c, 1), 1);
  ::waitpid(parent, nullptr, 0);
}

}  // namespace
}  // namespace reaper
