#include "reaper/os/clone.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "harness/sandbox/cgroup_area.h"
#include "reaper/os/cgroup_fs.h"
#include "reaper/reaper.h"

namespace reaper {
namespace {

// The cgroup the child of clone_child(0, cgroup) says it is in, from its first instruction
// on (it reads /proc/self/cgroup before doing anything else), and whether it was cloned there.
std::pair<std::string, bool> child_cgroup(const std::string& cgroup) {
  Pipe out = make_pipe();
  bool joined = true;
  const pid_t pid = clone_child(0, cgroup, &joined);
  if (pid == 0) {
    const std::string group = cgroup_of(::getpid());
    _exit(::write(out.write.get(), group.data(), group.size()) == static_cast<ssize_t>(group.size())
              ? 0
              : 1);
  }
  EXPECT_GT(pid, 0);
  out.write.reset();
  std::string seen(4096, '\0');
  const ssize_t n = ::read(out.read.get(), seen.data(), seen.size());
  seen.resize(n > 0 ? static_cast<size_t>(n) : 0);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return {seen, joined};
}

TEST(CloneChild, StartsTheChildInTheCgroupItIsGiven) {
  const reapcheck::CgroupArea area;
  if (area.path().empty()) GTEST_SKIP() << "no writable cgroup v2 here";
  const std::string group = area.path() + "/clone-test";
  ASSERT_EQ(::mkdir(group.c_str(), 0755), 0);
  const auto [seen, joined] = child_cgroup(group);
  EXPECT_EQ(seen, group);
  EXPECT_TRUE(joined);
  // Without a group, the child starts where its parent is, and says it was not moved.
  const auto [home, moved] = child_cgroup("");
  EXPECT_EQ(home, cgroup_of(::getpid()));
  EXPECT_FALSE(moved);
  ::rmdir(group.c_str());
  // A group that does not exist: no child, and the reason.
  errno = 0;
  EXPECT_EQ(clone_child(0, area.path() + "/missing"), -1);
  EXPECT_EQ(errno, ENOENT);
}

// How a child ended: WIFEXITED's code, or 128 + the signal that killed it.
int ended(pid_t pid) {
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// What spawn_shared's children write here, this process reads: the memory is shared, not copied.
volatile sig_atomic_t handled = 0;

TEST(SpawnShared, TheChildWritesThisProcesssMemoryUntilItExits) {
  if (!kSpawnSharesMemory) GTEST_SKIP() << "built with AddressSanitizer: the child is a copy";
  volatile int seen = 0;
  auto child = [&] {
    seen = ::getpid();
    ::_exit(0);
  };
  const pid_t pid = spawn_shared(0, child);
  ASSERT_GT(pid, 0);
  EXPECT_EQ(seen, pid);  // a fork would have written its own copy; and it has run already
  EXPECT_EQ(ended(pid), 0);
}

TEST(SpawnShared, NoHandlerOfThisProcessRunsInTheChild) {
  struct sigaction sa {};
  sa.sa_handler = [](int) { handled = handled + 1; };
  struct sigaction old {};
  ASSERT_EQ(::sigaction(SIGUSR1, &sa, &old), 0);
  handled = 0;
  auto child = [] {
    ::kill(::getpid(), SIGUSR1);  // pending: the child starts with every signal blocked
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);  // delivered here, with the default action
    ::_exit(0);
  };
  const pid_t pid = spawn_shared(0, child);
  ::sigaction(SIGUSR1, &old, nullptr);
  ASSERT_GT(pid, 0);
  EXPECT_EQ(ended(pid), 128 + SIGUSR1);  // the default action: the handler was not inherited
  EXPECT_EQ(handled, 0);                 // and did not run on this process's memory
}

TEST(SpawnShared, AnIgnoredSignalStaysIgnored) {
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  struct sigaction old {};
  ASSERT_EQ(::sigaction(SIGUSR2, &ignore, &old), 0);
  auto child = [] {
    struct sigaction now {};
    ::sigaction(SIGUSR2, nullptr, &now);
    ::_exit(now.sa_handler == SIG_IGN ? 0 : 2);  // as across a fork and an exec
  };
  const pid_t pid = spawn_shared(0, child);
  ::sigaction(SIGUSR2, &old, nullptr);
  ASSERT_GT(pid, 0);
  EXPECT_EQ(ended(pid), 0);
}

TEST(SpawnShared, LeavesTheCallersSignalMaskAsItWas) {
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  sigset_t before;
  ASSERT_EQ(::pthread_sigmask(SIG_BLOCK, &usr1, &before), 0);
  auto child = [] { ::_exit(0); };
  const pid_t pid = spawn_shared(0, child);
  ASSERT_GT(pid, 0);
  EXPECT_EQ(ended(pid), 0);
  sigset_t after;
  ::pthread_sigmask(SIG_SETMASK, &before, &after);
  EXPECT_TRUE(sigismember(&after, SIGUSR1));
  EXPECT_FALSE(sigismember(&after, SIGTERM));  // not the all-blocked mask the child starts with
}

TEST(SpawnShared, TakesCloneFlagsAndExecs) {
  if (::geteuid() != 0) GTEST_SKIP() << "a PID namespace needs root here";
  auto child = [] {
    // PID 1 of its namespace, told so by a program it execs.
    ::execl("/bin/sh", "sh", "-c", "[ $$ -eq 1 ]", nullptr);
    ::_exit(127);
  };
  const pid_t pid = spawn_shared(CLONE_NEWPID, child);
  ASSERT_GT(pid, 0);
  EXPECT_EQ(ended(pid), 0);
}

}  // namespace
}  // namespace reaper
