// spawn_agent() starts the agent without copying the spawner's memory (spawn_shared): what the
// agent starts with — its mask, its dispositions, its session, its directory — and how a failed
// start is reported must be as a fork would give them.
#include "reaper/agent.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace reaper {
namespace {

// Runs the agent `argv` with its output on a pipe; returns what it printed.
std::string agent_output(std::vector<std::string> argv, std::vector<int> blocked = {}) {
  Pipe out = make_pipe();
  AgentSpec spec;
  spec.argv = std::move(argv);
  spec.cwd = "/";
  spec.env = {"PATH=/usr/bin:/bin"};
  spec.output_fd = out.write.get();
  spec.blocked_signals = std::move(blocked);
  Agent agent = spawn_agent(spec, {});
  out.write.reset();
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(out.read.get(), buf, sizeof buf)) > 0)
    text.append(buf, static_cast<size_t>(n));
  EXPECT_TRUE(agent.wait_exit(std::chrono::steady_clock::now() + std::chrono::seconds(10)));
  return text;
}

TEST(SpawnAgent, StartsWithTheMaskItIsGivenAndDefaultDispositions) {
  // The spawner ignores SIGHUP and blocks SIGUSR2: neither reaches the agent, whose mask is
  // the one it is given (SIGTERM), not the spawner's nor the all-blocked one its start runs in.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  struct sigaction old {};
  ASSERT_EQ(::sigaction(SIGHUP, &ignore, &old), 0);
  sigset_t usr2;
  sigemptyset(&usr2);
  sigaddset(&usr2, SIGUSR2);
  sigset_t old_mask;
  ASSERT_EQ(::pthread_sigmask(SIG_BLOCK, &usr2, &old_mask), 0);
  // grep, not a shell: dash clears its mask.
  const std::string status =
      agent_output({"grep", "-E", "^(SigBlk|SigIgn):", "/proc/self/status"}, {SIGTERM});
  ::pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  ::sigaction(SIGHUP, &old, nullptr);
  EXPECT_NE(status.find("SigBlk:\t0000000000004000"), std::string::npos) << status;  // bit 14
  EXPECT_NE(status.find("SigIgn:\t0000000000000000"), std::string::npos) << status;
}

TEST(SpawnAgent, LeadsASessionOfItsOwn) {
  const std::string out = agent_output({"sh", "-c", "echo $$ $(ps -o sid= -p $$)"});
  const auto space = out.find(' ');
  ASSERT_NE(space, std::string::npos) << out;
  EXPECT_EQ(std::atoi(out.c_str()), std::atoi(out.c_str() + space + 1)) << out;
}

TEST(SpawnAgent, NamesTheStepThatFailed) {
  AgentSpec spec;
  spec.argv = {"reapcheck-no-such-program"};
  spec.cwd = "/";
  spec.env = {"PATH=/usr/bin:/bin"};
  try {
    spawn_agent(spec, {});
    FAIL() << "a missing program started";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("'reapcheck-no-such-program': exec: No such file"),
              std::string::npos)
        << e.what();
  }
  spec.argv = {"true"};
  spec.cwd = "/reapcheck-no-such-directory";
  try {
    spawn_agent(spec, {});
    FAIL() << "started in a missing directory";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("chdir /reapcheck-no-such-directory"), std::string::npos)
        << e.what();
  }
  // Nothing of either is left unreaped.
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
}

}  // namespace
}  // namespace reaper
