// Reapers that are other people's programs. `exec:CMD` runs CMD at kill time with the agent's
// ids filled in, as a kill command or a CLI would be run; `supervise:CMD` starts the agent under
// CMD (a supervisor such as tini) and kills by signalling the supervisor.
#include "reaper/external.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "reaper/os/deadline.h"
#include "reaper/os/pidfd.h"
#include "reaper/os/sys_error.h"

namespace reaper {
namespace {

constexpr std::chrono::milliseconds kCommandDeadline{5000};  // beyond the grace period

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

// Runs `sh -c command` in a process group of its own, collects its stderr, and waits for it
// until `deadline`; on a hang the whole group is killed and Timeout thrown.
void run_command(const std::string& command, std::chrono::steady_clock::time_point deadline,
                 KillReport& report) {
  Pipe err = make_pipe();
  pid_t pid = ::fork();
  if (pid < 0) throw_sys("fork " + command);
  if (pid == 0) {
    ::setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGCHLD, SIG_DFL);
    ::dup2(err.write.get(), STDERR_FILENO);
    int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);  // the dup2 copies are what stay
    ::dup2(null_fd, STDIN_FILENO);
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  err.write.reset();
  auto pidfd = pidfd_open(pid);
  std::string stderr_text;
  bool exited = false;
  for (;;) {
    auto left = time_left(deadline);
    if (left.count() <= 0) break;
    pollfd fds[2] = {{err.read.get(), POLLIN, 0}, {pidfd ? pidfd->get() : -1, POLLIN, 0}};
    if (::poll(fds, 2, static_cast<int>(left.count())) < 0 && errno != EINTR) break;
    if (fds[0].revents & (POLLIN | POLLHUP)) {
      char buf[1024];
      ssize_t n = ::read(err.read.get(), buf, sizeof buf);
      if (n > 0 && stderr_text.size() < 4096) stderr_text.append(buf, static_cast<size_t>(n));
      if (n > 0) continue;
      fds[0].fd = -1;
    }
    if (fds[1].revents & POLLIN) {
      exited = true;
      break;
    }
  }
  while (!stderr_text.empty() && stderr_text.back() == '\n') stderr_text.pop_back();
  if (!stderr_text.empty()) report.note("stderr: " + stderr_text);
  if (!exited) {
    ::kill(-pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    throw Timeout("'" + command + "' did not finish within its deadline" +
                  (stderr_text.empty() ? "" : "; stderr: " + stderr_text));
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) {
    throw std::runtime_error("'" + command + "' was killed by " + signal_name(WTERMSIG(status)) +
                             (stderr_text.empty() ? "" : "; stderr: " + stderr_text));
  }
  report.note("exit status " + std::to_string(WEXITSTATUS(status)));
  if (WEXITSTATUS(status) != 0) {
    throw std::runtime_error("'" + command + "' exited with status " +
                             std::to_string(WEXITSTATUS(status)) +
                             (stderr_text.empty() ? "" : ": " + stderr_text));
  }
}

class ExecCommand final : public Reaper {
 public:
  explicit ExecCommand(std::string command) : command_(std::move(command)) {}

  Agent spawn(const AgentSpec& spec) override {
    worktree_ = spec.cwd;
    return spawn_agent(spec, {});
  }

  KillReport kill(Agent& agent, std::chrono::milliseconds grace) override {
    KillReport report;
    const std::string id = std::to_string(agent.pid());  // its own session: pid = pgid = sid
    std::string command = replace_all(command_, "{pid}", id);
    command = replace_all(command, "{pgid}", id);
    command = replace_all(command, "{sid}", id);
    command = replace_all(command, "{worktree}", worktree_);
    command = replace_all(command, "{grace_s}", std::to_string(grace.count() / 1000.0));
    report.note("exec: " + command);
    run_command(command, std::chrono::steady_clock::now() + grace + kCommandDeadline, report);
    return report;
  }

 private:
  std::string command_;
  std::string worktree_;
};

class Supervise final : public Reaper {
 public:
  explicit Supervise(std::string command) : command_(std::move(command)) {}

  Agent spawn(const AgentSpec& spec) override {
    // sh -c 'exec CMD "$@"' sh AGENT...: the supervisor keeps the shell's pid.
    AgentSpec supervised = spec;
    supervised.argv = {"/bin/sh", "-c", "exec " + command_ + " \"$@\"", "sh"};
    supervised.argv.insert(supervised.argv.end(), spec.argv.begin(), spec.argv.end());
    return spawn_agent(supervised, {});
  }

  KillReport kill(Agent& supervisor, std::chrono::milliseconds grace) override {
    KillReport report;
    pidfd_signal(supervisor.pidfd(), SIGTERM);
    report.note("SIGTERM to the supervisor " + std::to_string(supervisor.pid()));
    if (!supervisor.wait_reaping(std::chrono::steady_clock::now() + grace)) {
      pidfd_signal(supervisor.pidfd(), SIGKILL);
      report.note("SIGKILL to the supervisor after the grace period");
      supervisor.wait_reaping(std::chrono::steady_clock::now() + kCommandDeadline);
    } else {
      report.note("the supervisor exited");
    }
    return report;
  }

 private:
  std::string command_;
};

}  // namespace

std::unique_ptr<Reaper> make_exec_command(std::string command) {
  return std::make_unique<ExecCommand>(std::move(command));
}

std::unique_ptr<Reaper> make_supervise(std::string command) {
  return std::make_unique<Supervise>(std::move(command));
}

}  // namespace reaper
