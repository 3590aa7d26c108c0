#include "reaper_host.h"

#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "reaper/pidfd.h"
#include "reaper/sys_error.h"

namespace reapcheck {
namespace {

void send(int fd, const nlohmann::json& message) {
  std::string line = message.dump() + "\n";
  (void)!::write(fd, line.data(), line.size());  // one write: replies are small
}

[[noreturn]] void host_main(const reaper::ReaperInfo& info, const reaper::AgentSpec& spec,
                            std::chrono::milliseconds grace, int command_fd, int reply_fd) {
  try {
    auto r = info.make();
    reaper::Agent agent = r->spawn(spec);
    for (int fd : spec.inherit_fds) ::close(fd);
    send(reply_fd, {{"spawned", agent.pid()}});
    char c = 0;
    if (::read(command_fd, &c, 1) != 1) ::_exit(0);  // the runner gave up on us
    reaper::KillReport report = r->kill(agent, grace);
    send(reply_fd, {{"killed", report.steps}});
  } catch (const std::exception& e) {
    send(reply_fd, {{"error", e.what()}});
    ::_exit(1);
  }
  ::_exit(0);
}

}  // namespace

ReaperHost::ReaperHost(const reaper::ReaperInfo& reaper, const reaper::AgentSpec& spec,
                       std::chrono::milliseconds grace)
    : reader_(-1) {
  reaper::Pipe command = reaper::make_pipe();
  reaper::Pipe replies = reaper::make_pipe();
  pid_ = ::fork();
  if (pid_ < 0) reaper::throw_sys("fork reaper host");
  if (pid_ == 0) {
    command.write.reset();
    replies.read.reset();
    host_main(reaper, spec, grace, command.read.get(), replies.write.get());
  }
  auto fd = reaper::pidfd_open(pid_);
  if (!fd) reaper::throw_sys("pidfd_open(reaper host)", ESRCH);
  pidfd_ = std::move(*fd);
  command_ = std::move(command.write);
  replies_ = std::move(replies.read);
  reader_ = LineReader(replies_.get());
}

ReaperHost::~ReaperHost() {
  if (pid_ <= 0) return;
  ::syscall(SYS_pidfd_send_signal, pidfd_.get(), SIGKILL, nullptr, 0);
  ::waitpid(pid_, nullptr, 0);
}

std::string ReaperHost::exit_description() {
  siginfo_t info{};
  reaper::pidfd_wait_exit(pidfd_.get(), std::chrono::milliseconds(1000));
  if (::waitid(P_PIDFD, static_cast<id_t>(pidfd_.get()), &info, WEXITED | WNOHANG | WNOWAIT) != 0 ||
      info.si_pid == 0) {
    return "the reaper host closed its reply pipe but is still running";
  }
  if (info.si_code == CLD_EXITED) {
    return "the reaper host exited with status " + std::to_string(info.si_status);
  }
  return "the reaper host was killed by " + reaper::signal_name(info.si_status);
}

ReaperHost::Reply ReaperHost::read_reply(Clock::time_point deadline, const char* what) {
  Reply reply;
  LineReader::Result r = reader_.next(deadline);
  if (r.status == LineReader::Status::timeout) {
    reply.status = Reply::Status::timeout;
    reply.error = std::string("no reply to '") + what + "' before the deadline";
    return reply;
  }
  if (r.status == LineReader::Status::eof) {
    reply.error = exit_description() + " without replying to '" + what + "'";
    return reply;
  }
  auto message = nlohmann::json::parse(r.line, nullptr, false);
  if (message.is_discarded() || !message.is_object()) {
    reply.error = "the reaper host sent a malformed reply: " + r.line;
  } else if (message.contains("error")) {
    reply.error = message["error"].get<std::string>();
  } else if (message.contains("spawned")) {
    reply.status = Reply::Status::ok;
    reply.agent = message["spawned"].get<pid_t>();
  } else if (message.contains("killed")) {
    reply.status = Reply::Status::ok;
    reply.steps = message["killed"].get<std::vector<std::string>>();
  } else {
    reply.error = "the reaper host sent an unknown reply: " + r.line;
  }
  return reply;
}

ReaperHost::Reply ReaperHost::wait_spawned(Clock::time_point deadline) {
  return read_reply(deadline, "spawn");
}

void ReaperHost::request_kill() {
  if (::write(command_.get(), "k", 1) != 1) reaper::throw_sys("tell the reaper host to kill");
}

ReaperHost::Reply ReaperHost::wait_killed(Clock::time_point deadline) {
  return read_reply(deadline, "kill");
}

}  // namespace reapcheck
