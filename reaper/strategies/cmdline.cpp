// The second seed (docs/architecture.md, "Orchestrator B"), step for step: find the agent's
// processes with `pgrep -f <worktree>`, SIGKILL them all, then check each is gone within a
// deadline and report the survivors. It finds by command line, so it misses members whose argv
// lacks the path and kills any bystander whose argv mentions it; there is no SIGTERM phase.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

#include "reaper/os/sys_error.h"
#include "reaper/os/unique_fd.h"
#include "reaper/reaper.h"

// pgrep runs with the reaper's own environment, as the orchestrator's would.
extern char** environ;  // check-layers: environment passed on

namespace reaper {
namespace {

constexpr std::chrono::milliseconds kVerifyDeadline{2000};
constexpr std::chrono::milliseconds kVerifyInterval{50};  // the seed's polling, kept as such

// Runs pgrep directly (no shell, whose own command line would match too).
std::vector<pid_t> pgrep_full(const std::string& pattern, KillReport& report) {
  Pipe out = make_pipe();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out.write.get(), STDOUT_FILENO);
  const char* argv[] = {"pgrep", "-f", pattern.c_str(), nullptr};
  pid_t pid = 0;
  int rc = ::posix_spawnp(&pid, "pgrep", &actions, nullptr, const_cast<char**>(argv),
                          environ);  // check-layers: environment passed on
  posix_spawn_file_actions_destroy(&actions);
  out.write.reset();
  std::vector<pid_t> pids;
  if (rc != 0) {
    report.note("pgrep could not start: " + std::string(std::strerror(rc)));
    return pids;
  }
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(out.read.get(), buf, sizeof buf)) > 0)
    text.append(buf, static_cast<size_t>(n));
  ::waitpid(pid, nullptr, 0);
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) pids.push_back(static_cast<pid_t>(std::stol(text.substr(start, end - start))));
    start = end + 1;
  }
  return pids;
}

class Cmdline final : public Reaper {
 public:
  Agent spawn(const AgentSpec& spec) override {
    worktree_ = spec.cwd;
    return spawn_agent(spec, {});
  }

  KillReport kill(Agent& agent, std::chrono::milliseconds /*grace: the seed has none*/) override {
    KillReport report;
    const std::vector<pid_t> pids = pgrep_full(worktree_, report);
    report.note("pgrep -f " + worktree_ + ": " + std::to_string(pids.size()) + " processes");
    for (pid_t p : pids) {
      ::kill(p, SIGKILL);
      report.note("kill(" + std::to_string(p) + ", SIGKILL)");
    }
    const auto deadline = std::chrono::steady_clock::now() + kVerifyDeadline;
    std::vector<pid_t> alive = pids;
    while (!alive.empty() && std::chrono::steady_clock::now() < deadline) {
      agent.reap_if_exited();  // the server's runtime reaps its own child
      std::erase_if(alive, [](pid_t p) { return ::kill(p, 0) != 0; });
      if (!alive.empty()) std::this_thread::sleep_for(kVerifyInterval);
    }
    for (pid_t p : alive) report.note("still present after the deadline: " + std::to_string(p));
    return report;
  }

 private:
  std::string worktree_;
};

}  // namespace

ReaperInfo cmdline_strategy() {
  return {
      "cmdline", "pgrep -f <worktree>, SIGKILL, verify they are gone (the second seed)",
      [](const ReaperConfig&) -> std::unique_ptr<Reaper> { return std::make_unique<Cmdline>(); },
      "procps's pgrep on PATH"};
}

}  // namespace reaper
