#include "reaper/os/clone.h"

#include <gtest/gtest.h>
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

}  // namespace
}  // namespace reaper
