#include "harness/catalog/external.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/close_range.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <boost/asio/io_context.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/readable_pipe.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/process/v2.hpp>

#include "harness/model/result.h"
#include "harness/support/hold_clock.h"
#include "reaper/os/pidfd.h"

namespace reapcheck {
namespace {

namespace asio = boost::asio;
namespace bp = boost::process::v2;

constexpr size_t kStderrKept = 4096;

// Child-side set-up for the command, run between fork and exec: a process group of its own, so
// a hang can be ended whole, and the signal state of a fresh program — the reaper host blocks
// and handles signals that a shell and its children must see as defaults. Its stdout joins its
// stderr in the evidence (never reapcheck's own stdout, where the matrix goes), and nothing
// above fd 2 survives the exec: the launcher leaves its /dev/null and a pipe open otherwise.
struct OwnGroupDefaultSignals {
  bp::error_code on_exec_setup(bp::posix::default_launcher&, const bp::filesystem::path&,
                               const char* const*) {
    ::dup2(STDERR_FILENO, STDOUT_FILENO);
    ::syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC);
    ::setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGCHLD, SIG_DFL);
    return {};
  }
};

// What became of one run of the command.
struct CommandRun {
  bool timed_out = false;
  int status = 0;  // the native wait status, once exited
  std::string stderr_text;
};

// Reads the command's stderr as it comes, keeping the first kStderrKept bytes.
class StderrReader {
 public:
  StderrReader(asio::readable_pipe& pipe, std::string& text) : pipe_(pipe), text_(text) {}
  void start() {
    pipe_.async_read_some(asio::buffer(buf_), [this](const bp::error_code& ec, size_t n) {
      keep(n);
      if (!ec) start();
    });
  }
  // What is already in the pipe once the command has exited, without waiting for a writer that
  // outlives it: a job the command left in the background holds the pipe open (asio's own
  // synchronous read would wait for it, so this reads the descriptor itself, non-blocking).
  void drain() {
    const int fd = pipe_.native_handle();
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    for (ssize_t n; (n = ::read(fd, buf_.data(), buf_.size())) > 0;) keep(static_cast<size_t>(n));
    bp::error_code ec;
    pipe_.close(ec);
  }

 private:
  void keep(size_t n) {
    if (text_.size() < kStderrKept) {
      text_.append(buf_.data(), std::min(n, kStderrKept - text_.size()));
    }
  }
  asio::readable_pipe& pipe_;
  std::string& text_;
  std::array<char, 1024> buf_{};
};

// Runs `sh -c command` with stdin from /dev/null and stdout and stderr captured, until it exits or
// `deadline` passes; then its process group — its own, nothing else — is killed.
CommandRun run_command(const std::string& command, std::chrono::steady_clock::time_point deadline) {
  asio::io_context ctx;
  asio::readable_pipe err(ctx);
  CommandRun run;
  bp::process proc(ctx, "/bin/sh", {"-c", command}, bp::process_stdio{nullptr, {}, err},
                   OwnGroupDefaultSignals{});
  StderrReader reader(err, run.stderr_text);
  reader.start();
  asio::steady_timer timer(ctx, deadline);
  // Inside a case, the time the signal ledger held the command's calls moves its deadline.
  const HoldClock* hold = HoldClock::of_case();
  const std::chrono::nanoseconds held_before =
      hold != nullptr ? hold->held() : std::chrono::nanoseconds{0};
  std::function<void(const bp::error_code&)> expire = [&](const bp::error_code& ec) {
    if (ec) return;  // cancelled: the command exited in time
    if (hold != nullptr && hold->moved(deadline, held_before) > timer.expiry()) {
      timer.expires_at(hold->moved(deadline, held_before));
      timer.async_wait(expire);
      return;
    }
    run.timed_out = true;
    ::kill(-proc.id(), SIGKILL);
  };
  timer.async_wait(expire);
  proc.async_wait([&](const bp::error_code&, int) {
    run.status = proc.native_exit_code();
    timer.cancel();
    reader.drain();
  });
  ctx.run();
  while (!run.stderr_text.empty() && run.stderr_text.back() == '\n') run.stderr_text.pop_back();
  return run;
}

// Waits with `wait` until `deadline`; inside a case, moved by the time the signal ledger held the
// reaper's calls meanwhile (hold_clock.h).
bool wait_moved(const std::function<bool(std::chrono::steady_clock::time_point)>& wait,
                std::chrono::steady_clock::time_point deadline) {
  const HoldClock* hold = HoldClock::of_case();
  return hold != nullptr ? hold->wait(deadline, wait) : wait(deadline);
}

std::string with_stderr(const std::string& what, const std::string& stderr_text) {
  return stderr_text.empty() ? what : what + "; stderr: " + stderr_text;
}

class ExecCommand final : public reaper::Reaper {
 public:
  ExecCommand(std::string command, std::chrono::milliseconds hung_after)
      : command_(std::move(command)), hung_after_(hung_after) {}

  reaper::Agent spawn(const reaper::AgentSpec& spec) override {
    worktree_ = spec.cwd;
    return reaper::spawn_agent(spec, {});
  }

  reaper::KillReport kill(reaper::Agent& agent, std::chrono::milliseconds grace) override {
    reaper::KillReport report;
    const std::string id = std::to_string(agent.pid());  // its own session: pid = pgid = sid
    const std::string command = fill_placeholders(command_, {{"pid", id},
                                                             {"pgid", id},
                                                             {"sid", id},
                                                             {"worktree", worktree_},
                                                             {"grace_s", grace_seconds(grace)}});
    report.note("exec: " + command);
    const CommandRun run =
        run_command(command, std::chrono::steady_clock::now() + grace + hung_after_);
    if (!run.stderr_text.empty()) report.note("stderr: " + run.stderr_text);
    const std::string quoted = "'" + command + "'";
    if (run.timed_out) {
      throw reaper::Timeout(
          with_stderr(quoted + " did not finish within its deadline", run.stderr_text));
    }
    if (WIFSIGNALED(run.status)) {
      throw std::runtime_error(with_stderr(
          quoted + " was killed by " + reaper::signal_name(WTERMSIG(run.status)), run.stderr_text));
    }
    const int code = WEXITSTATUS(run.status);
    report.note("exit status " + std::to_string(code));
    if (code != 0) {
      throw std::runtime_error(quoted + " exited with status " + std::to_string(code) +
                               (run.stderr_text.empty() ? "" : ": " + run.stderr_text));
    }
    return report;
  }

 private:
  std::string command_;
  std::chrono::milliseconds hung_after_;
  std::string worktree_;
};

// The agent itself is started as every reaper starts it (reaper::spawn_agent: its own session,
// the readiness fds kept), only under CMD.
class Supervise final : public reaper::Reaper {
 public:
  Supervise(std::string command, std::chrono::milliseconds hung_after)
      : command_(std::move(command)), hung_after_(hung_after) {}

  reaper::Agent spawn(const reaper::AgentSpec& spec) override {
    // sh -c 'exec CMD "$@"' sh AGENT...: the supervisor keeps the shell's pid.
    reaper::AgentSpec supervised = spec;
    supervised.argv = {"/bin/sh", "-c", "exec " + command_ + " \"$@\"", "sh"};
    supervised.argv.insert(supervised.argv.end(), spec.argv.begin(), spec.argv.end());
    return reaper::spawn_agent(supervised, {});
  }

  reaper::KillReport kill(reaper::Agent& supervisor, std::chrono::milliseconds grace) override {
    reaper::KillReport report;
    reaper::pidfd_signal(supervisor.pidfd(), SIGTERM);
    report.note("SIGTERM to the supervisor " + std::to_string(supervisor.pid()));
    const auto reaped = [&](auto until) { return supervisor.wait_reaping(until); };
    const auto exited = [&](auto until) { return supervisor.wait_exit(until); };
    if (!wait_moved(reaped, std::chrono::steady_clock::now() + grace)) {
      reaper::pidfd_signal(supervisor.pidfd(), SIGKILL);
      report.note(std::string(kSupervisorKilledStep));
      // Waited for as the process it is, not as a timer: the kill is done once it has exited.
      if (!wait_moved(exited, std::chrono::steady_clock::now() + hung_after_)) {
        throw reaper::Timeout(fmt::format("the supervisor had not exited {} ms after its SIGKILL",
                                          hung_after_.count()));
      }
      report.note("the supervisor exited after its SIGKILL");
    } else {
      report.note("the supervisor exited");
    }
    return report;
  }

 private:
  std::string command_;
  std::chrono::milliseconds hung_after_;
};

}  // namespace

std::string grace_seconds(std::chrono::milliseconds grace) {
  return std::to_string(static_cast<double>(grace.count()) / 1000.0);
}

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string fill_placeholders(const std::string& command,
                              const std::map<std::string, std::string>& values) {
  std::string out;
  for (size_t at = 0; at < command.size();) {
    const size_t open = command.find('{', at);
    const size_t close = open == std::string::npos ? open : command.find('}', open);
    if (close == std::string::npos) {
      out += command.substr(at);
      break;
    }
    out += command.substr(at, open - at);
    const auto value = values.find(command.substr(open + 1, close - open - 1));
    if (value == values.end()) {  // not a placeholder: keep the brace, look on after it
      out += '{';
      at = open + 1;
      continue;
    }
    out += shell_quote(value->second);
    at = close + 1;
  }
  return out;
}

std::unique_ptr<reaper::Reaper> make_exec_command(std::string command,
                                                  const reaper::ReaperConfig& config) {
  return std::make_unique<ExecCommand>(std::move(command), config.hung_after);
}

std::unique_ptr<reaper::Reaper> make_supervise(std::string command,
                                               const reaper::ReaperConfig& config) {
  return std::make_unique<Supervise>(std::move(command), config.hung_after);
}

}  // namespace reapcheck
