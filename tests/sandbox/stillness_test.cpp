// Whether threads ran between two looks: a child of two threads, one echoing what reaches it on
// a pipe, both asleep. Left alone, two looks find nothing ran; once the test has had an echo, its
// thread ran, whether it is asleep again at the second look or not yet.
#include "harness/engine/census/stillness.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include "reaper/os/sys_error.h"
#include "reaper/os/unique_fd.h"

namespace reapcheck {
namespace {

// A child whose main thread waits for good while another echoes each byte from `in` to `out`;
// SIGKILLed and reaped when it goes out of scope.
class Echo {
 public:
  Echo() {
    pid_ = ::fork();
    if (pid_ < 0) reaper::throw_sys("fork");
    if (pid_ == 0) {
      std::thread echo([this] {
        char c = 0;
        while (::read(to_.read.get(), &c, 1) == 1) (void)!::write(from_.write.get(), &c, 1);
      });
      for (;;) ::pause();
    }
    // Both threads there and asleep: there is no event to wait for, only what /proc shows.
    for (;;) {
      const ThreadRuns now = thread_runs({pid_});
      if (now.switches.size() == 2 && !now.runnable) break;
      ::sched_yield();
    }
  }
  ~Echo() {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  Echo(const Echo&) = delete;
  Echo& operator=(const Echo&) = delete;

  pid_t pid() const { return pid_; }
  // Sends a byte and waits for it to come back: the echoing thread has run.
  void round_trip() const {
    char c = 'x';
    if (::write(to_.write.get(), &c, 1) != 1 || ::read(from_.read.get(), &c, 1) != 1) {
      reaper::throw_sys("echo");
    }
  }

 private:
  reaper::Pipe to_ = reaper::make_pipe();
  reaper::Pipe from_ = reaper::make_pipe();
  pid_t pid_ = 0;
};

TEST(Stillness, ThreadsLeftAsleepDidNotRun) {
  const Echo echo;
  const ThreadRuns before = thread_runs({echo.pid()});
  EXPECT_EQ(before.switches.size(), 2U);
  EXPECT_TRUE(none_ran(before, thread_runs({echo.pid()})));
}

TEST(Stillness, AThreadWokenBetweenTheLooksRan) {
  const Echo echo;
  for (int i = 0; i < 100; ++i) {
    const ThreadRuns before = thread_runs({echo.pid()});
    echo.round_trip();
    EXPECT_FALSE(none_ran(before, thread_runs({echo.pid()}))) << "round trip " << i;
  }
}

TEST(Stillness, AProcessGoneOrAThreadMoreIsAChange) {
  const Echo echo;
  ThreadRuns two = thread_runs({echo.pid(), ::getpid()});
  const ThreadRuns one = thread_runs({echo.pid()});
  two.runnable = false;  // this process, reading, is on a CPU
  EXPECT_FALSE(none_ran(two, one));
  EXPECT_FALSE(none_ran(one, two));
  EXPECT_TRUE(thread_runs({0}).switches.empty());
}

}  // namespace
}  // namespace reapcheck
