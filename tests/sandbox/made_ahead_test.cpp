// A sandbox made ahead of its case (sandbox.h): the next case's sandbox is made while the last
// one runs, so each must still be fresh, get its own request, and leave nothing behind unused.
// Runs inside `unshare --pid --fork --mount-proc`, like the other sandbox tests.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "harness/sandbox/pid_one.h"
#include "harness/sandbox/sandbox.h"
#include "harness/support/layout.h"
#include "reaper/os/proc_table.h"

namespace reapcheck {
namespace {

using namespace std::chrono_literals;

SandboxOptions options(const std::filesystem::path& scratch) {
  SandboxOptions o;
  o.deadline = 10s;
  o.scratch = scratch;
  o.visible = Layout::of_running_binary().harness_paths();
  return o;
}

// The body: leaves a mark in its scratch (the request's first line) and reports its pid, its
// PID namespace and whether the other scratch (the request's second line) holds a mark.
std::string mark_and_look(const std::string& request) {
  const std::string mine = request.substr(0, request.find('\n'));
  const std::string other = request.substr(request.find('\n') + 1);
  std::ofstream(mine + "/mark") << "here";
  struct stat ns {};
  ::stat("/proc/self/ns/pid", &ns);
  return std::to_string(::getpid()) + " " + std::to_string(ns.st_ino) + " " +
         (std::filesystem::exists(other + "/mark") ? "sees-other" : "alone");
}

TEST(SandboxMadeAhead, RunsItsBodyOnTheRequestItIsHanded) {
  ScratchDir scratch(Layout::of_running_binary().temp);
  Sandbox sandbox([](const std::string& request) { return "got " + request; },
                  options(scratch.path()));
  const SandboxOutcome out = sandbox.run("job 7", 10s);
  ASSERT_EQ(out.status, SandboxOutcome::Status::finished) << out.output;
  EXPECT_EQ(out.output, "got job 7");
}

// The series' pattern: the second sandbox is made while the first one's body runs.
TEST(SandboxMadeAhead, OneMadeWhileAnotherRunsSharesNothingWithIt) {
  const auto temp = Layout::of_running_binary().temp;
  ScratchDir first_dir(temp), second_dir(temp);
  const std::string a = first_dir.path().string(), b = second_dir.path().string();
  Sandbox first(mark_and_look, options(a));
  std::optional<Sandbox> second;
  const SandboxOutcome one =
      first.run(a + "\n" + b, 10s, [&] { second.emplace(mark_and_look, options(b)); });
  ASSERT_TRUE(second);
  const SandboxOutcome two = second->run(b + "\n" + a, 10s);
  ASSERT_EQ(one.status, SandboxOutcome::Status::finished) << one.output;
  ASSERT_EQ(two.status, SandboxOutcome::Status::finished) << two.output;
  const auto field = [](const std::string& s, int n) {
    std::istringstream in(s);
    std::string f;
    for (int i = 0; i <= n; ++i) in >> f;
    return f;
  };
  EXPECT_EQ(field(one.output, 0), "1");
  EXPECT_EQ(field(two.output, 0), "1");
  EXPECT_NE(field(one.output, 1), field(two.output, 1)) << "the same PID namespace twice";
  // Each scratch is a tmpfs of its sandbox's own: the first's mark is not in the second's view.
  EXPECT_EQ(field(two.output, 2), "alone") << two.output;
  EXPECT_EQ(field(one.output, 2), "alone") << one.output;
}

// PID 1 that failed setting itself up has closed its end before the request comes: the harness
// gets a refusal, not a SIGPIPE that would end it.
TEST(SandboxMadeAhead, ARequestPidOneCannotTakeIsRefusedWithoutSigpipe) {
  // In a child: this test process is PID 1 of its namespace, which no SIGPIPE would end.
  const pid_t child = ::fork();
  if (child == 0) {
    int fds[2];
    if (::pipe(fds) != 0) ::_exit(3);
    ::close(fds[0]);
    if (send_request(fds[1], "job 1")) ::_exit(1);
    sigset_t pending;
    ::sigpending(&pending);
    ::_exit(::sigismember(&pending, SIGPIPE) == 1 ? 2 : 0);  // 2: left pending
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_FALSE(WIFSIGNALED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: the write succeeded; 2: a SIGPIPE was left pending";
}

TEST(SandboxMadeAhead, OneNeverRunLeavesNothingRunning) {
  const size_t before = reaper::ProcTable::read().all().size();
  {
    ScratchDir scratch(Layout::of_running_binary().temp);
    Sandbox unused([](const std::string&) { return std::string("ran"); }, options(scratch.path()));
    // PID 1 waits; the warden that made it has exited, and waits to be reaped.
    EXPECT_EQ(reaper::ProcTable::read().all().size(), before + 2);
  }
  EXPECT_EQ(reaper::ProcTable::read().all().size(), before) << "the unused sandbox lives on";
}

}  // namespace
}  // namespace reapcheck
