#include "harness/support/process_title.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "reaper/os/read_file.h"
#include "reaper/os/unique_fd.h"

namespace reapcheck {
namespace {

// A fork of this test that takes `title`, then tells what getenv() still finds and waits for the
// test to have read its /proc entries (until `hold` reaches end of file).
struct TitledChild {
  pid_t pid = -1;
  std::string said;  // getenv("REAPCHECK_TITLE_TEST") after the title was set

  explicit TitledChild(const std::string& title) {
    int tell[2];
    int hold[2];
    EXPECT_EQ(::pipe(tell), 0);
    EXPECT_EQ(::pipe(hold), 0);
    pid = ::fork();
    if (pid == 0) {
      ::close(tell[0]);
      ::close(hold[1]);
      set_process_title(title);
      const char* value = ::getenv("REAPCHECK_TITLE_TEST");
      const std::string text = value != nullptr ? value : "(unset)";
      if (::write(tell[1], text.data(), text.size()) < 0) ::_exit(1);
      ::close(tell[1]);
      char c;
      while (::read(hold[0], &c, 1) > 0) {
      }
      ::_exit(0);
    }
    ::close(tell[1]);
    ::close(hold[0]);
    hold_ = reaper::UniqueFd(hold[1]);
    char buf[256];
    ssize_t n;
    while ((n = ::read(tell[0], buf, sizeof buf)) > 0) said.append(buf, static_cast<size_t>(n));
    ::close(tell[0]);
  }
  ~TitledChild() {
    hold_.reset();
    ::waitpid(pid, nullptr, 0);
  }
  std::string proc(const char* what) const {
    return reaper::read_file("/proc/" + std::to_string(pid) + "/" + what);
  }

 private:
  reaper::UniqueFd hold_;
};

TEST(ProcessTitle, ShowsTheTitleAloneAndNoneOfTheArgvOrEnvironmentItReplaces) {
  ::setenv("REAPCHECK_TITLE_TEST", "/home/someone/my-app", 1);
  const std::string before = reaper::read_file("/proc/self/cmdline");
  ASSERT_FALSE(before.empty());
  TitledChild child("reapcheck case runner");
  EXPECT_EQ(child.proc("cmdline"), std::string("reapcheck case runner") + '\0');
  const std::string environ_text = child.proc("environ");
  EXPECT_EQ(environ_text.find_first_not_of('\0'), std::string::npos) << environ_text;
  // The process itself still has its environment, and the test (its parent) its command line.
  EXPECT_EQ(child.said, "/home/someone/my-app");
  EXPECT_EQ(reaper::read_file("/proc/self/cmdline"), before);
  ::unsetenv("REAPCHECK_TITLE_TEST");
}

TEST(ProcessTitle, ATitleLongerThanTheArgumentsRunsOnIntoTheEnvironmentsRoom) {
  const std::string before = reaper::read_file("/proc/self/cmdline");
  const std::string title = "reapcheck " + std::string(before.size() + 20, 'x');
  TitledChild child(title);
  EXPECT_EQ(child.proc("cmdline"), title + '\0');
}

}  // namespace
}  // namespace reapcheck
