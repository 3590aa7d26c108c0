#include "harness/engine/reaper_side/reaper_host.h"

#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <nlohmann/json.hpp>
#include <thread>

#include "harness/engine/ledger/signal_filter.h"
#include "harness/model/text.h"
#include "harness/sandbox/init_reaping.h"
#include "harness/support/cpu_time.h"
#include "harness/support/process_title.h"
#include "reaper/os/pidfd.h"
#include "reaper/os/sys_error.h"

namespace reapcheck {
namespace {

void send(int fd, const nlohmann::json& message) {
  std::string line = json_text(message) + "\n";
  (void)!::write(fd, line.data(), line.size());  // one write: replies are small
}

// The host plays the orchestrator process, whose runtime (node's libuv, say) reaps each child
// the moment it exits — which is what frees an agent's pid and group id for reuse. Only the
// agents are reaped here: a reaper's own helpers (ps, pgrep) are waited for by the reaper.
int g_agent_pidfds[2] = {-1, -1};

void reap_agents(int) {
  const int saved = errno;
  for (int fd : g_agent_pidfds) {
    siginfo_t info{};
    if (fd >= 0) ::waitid(P_PIDFD, static_cast<id_t>(fd), &info, WEXITED | WNOHANG);
  }
  errno = saved;
}

// `agent` is null when the host waits for it itself (wait_for()).
void reap_agents_on_exit(const reaper::Agent* agent, const std::optional<reaper::Agent>& sibling) {
  g_agent_pidfds[0] = agent != nullptr ? agent->pidfd() : -1;
  g_agent_pidfds[1] = sibling ? sibling->pidfd() : -1;
  struct sigaction sa {};
  sa.sa_handler = reap_agents;
  sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
  ::sigaction(SIGCHLD, &sa, nullptr);
  reap_agents(0);  // one may have exited already
}

// The environment the reaper runs in, as the case sets it: a machine without ps, say.
// An agent on a PTY writes to its master side, which the seed orchestrator reads to show the
// agent's output: a thread of the host does the same, into `out` (the case's log), so that the
// agent never blocks on a full PTY and its output can tell when it is ready. It ends when the PTY
// has no writer left.
void drain_pty(const reaper::Agent& agent, int out) {
  if (agent.pty_master() < 0 || out < 0) return;
  std::thread([master = agent.pty_master(), out] {
    char buf[4096];
    for (;;) {
      const ssize_t n = ::read(master, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;  // EIO: every slave side is closed
      if (::write(out, buf, static_cast<size_t>(n)) < 0 && errno != EINTR) return;
    }
  }).detach();
}

void apply_environment(const HostPlan& plan) {
  if (!plan.path.empty()) ::setenv("PATH", plan.path.c_str(), 1);
}

// The host's own CPU time, and that of the children it has waited for (a reaper's ps or
// pgrep, an exec: command, an agent it reaped), in ms.
struct CpuTime {
  double self_ms = 0;
  double children_ms = 0;
  CpuTime operator-(const CpuTime& o) const {
    return {self_ms - o.self_ms, children_ms - o.children_ms};
  }
};

CpuTime cpu_time() {
  return {cpu_ms(RUSAGE_SELF), cpu_ms(RUSAGE_CHILDREN)};
}

// With HostPlan::wait_agent: waits for the agent and says how it ended, as a CI runner reports
// its command's status.
void wait_for(const reaper::Agent& agent, int reply_fd) {
  siginfo_t info{};
  while (::waitid(P_PIDFD, static_cast<id_t>(agent.pidfd()), &info, WEXITED) != 0) {
    if (errno != EINTR) reaper::throw_sys("wait for the command");
  }
  if (info.si_code == CLD_EXITED) {
    send(reply_fd, {{"exited", info.si_status}});
  } else {
    send(reply_fd, {{"exited", -1}, {"signal", info.si_status}});
  }
}

[[noreturn]] void host_main(const HostPlan& plan, int command_fd, int reply_fd, int handover) {
  init::reset_in_child();
  set_process_title("reapcheck reaper host");
  apply_environment(plan);
  try {
    if (plan.ledger) send_listener(handover, install_signal_filter(plan.hold_exits));
    ::close(handover);
    auto r = plan.reaper->make(plan.config);
    std::optional<reaper::Agent> sibling;
    if (plan.sibling) sibling.emplace(r->spawn(*plan.sibling));
    reaper::Agent agent = r->spawn(plan.agent);
    for (int fd : plan.agent.inherit_fds) ::close(fd);
    if (plan.sibling) {
      for (int fd : plan.sibling->inherit_fds) ::close(fd);
    }
    drain_pty(agent, plan.agent.output_fd);
    if (sibling) drain_pty(*sibling, plan.sibling->output_fd);
    reap_agents_on_exit(plan.wait_agent ? nullptr : &agent, sibling);
    nlohmann::json spawned = {{"spawned", agent.pid()}};
    if (sibling) spawned["sibling"] = sibling->pid();
    send(reply_fd, spawned);
    char c = 0;
    if (plan.wait_agent) {
      wait_for(agent, reply_fd);
      while (::read(command_fd, &c, 1) > 0) {
      }
      ::_exit(0);
    }
    if (::read(command_fd, &c, 1) != 1) ::_exit(0);  // the runner gave up on us
    const CpuTime before = cpu_time();
    reaper::KillReport report = r->kill(agent, plan.grace);
    const CpuTime spent = cpu_time() - before;
    send(reply_fd, {{"killed", printable(report.steps)},
                    {"cpu_ms", {{"self", spent.self_ms}, {"children", spent.children_ms}}}});
    // Stay up, as an orchestrator does after killing one agent: exiting would close the
    // sibling's PTY and hang it up. The runner ends us when the case is over.
    while (::read(command_fd, &c, 1) > 0) {
    }
  } catch (const reaper::Timeout& e) {
    send(reply_fd, {{"timeout", printable(e.what())}});
    ::_exit(1);
  } catch (const reaper::Unsupported& e) {
    send(reply_fd, {{"unsupported", printable(e.what())}});
    ::_exit(1);
  } catch (const std::exception& e) {
    send(reply_fd, {{"error", printable(e.what())}});
    ::_exit(1);
  }
  ::_exit(0);
}

}  // namespace

ReaperHost::ReaperHost(const HostPlan& plan) : reader_(-1) {
  reaper::Pipe command = reaper::make_pipe();
  reaper::Pipe replies = reaper::make_pipe();
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
    reaper::throw_sys("socketpair");
  }
  handover_ = reaper::UniqueFd(pair[0]);
  reaper::UniqueFd handover_end(pair[1]);
  {
    init::BlockChildSignals block;
    pid_ = ::fork();
    if (pid_ < 0) reaper::throw_sys("fork reaper host");
    if (pid_ == 0) {
      command.write.reset();
      replies.read.reset();
      handover_.reset();
      host_main(plan, command.read.get(), replies.write.get(), handover_end.get());
    }
    init::watch(pid_);
  }
  if (!plan.ledger) handover_.reset();
  auto fd = reaper::pidfd_open(pid_);
  if (!fd) reaper::throw_sys("pidfd_open(reaper host)", ESRCH);
  pidfd_ = std::move(*fd);
  command_ = std::move(command.write);
  replies_ = std::move(replies.read);
  reader_ = LineReader(replies_.get());
}

ReaperHost::~ReaperHost() {
  if (pid_ <= 0) return;
  reaper::pidfd_try_signal(pidfd_.get(), SIGKILL);
  ::waitpid(pid_, nullptr, 0);
}

std::variant<reaper::UniqueFd, std::string> ReaperHost::take_listener(Clock::time_point deadline) {
  if (!handover_) return std::string("the signal ledger is off (--no-ledger)");
  auto listener = receive_listener(handover_.get(), deadline);
  handover_.reset();
  return listener;
}

std::string ReaperHost::exit_description() {
  reaper::pidfd_wait_exit(pidfd_.get(), std::chrono::milliseconds(1000));
  // Reaped by PID 1's SIGCHLD handler, which keeps the status of watched children.
  auto exit = init::exit_of(pid_);
  if (!exit) return "the reaper host closed its reply pipe but is still running";
  if (exit->code == CLD_EXITED) {
    return "the reaper host exited with status " + std::to_string(exit->status);
  }
  return "the reaper host was killed by " + reaper::signal_name(exit->status);
}

ReaperHost::Reply ReaperHost::read_reply(Clock::time_point deadline, const char* what) {
  Reply reply;
  LineReader::Result r = reader_.next(deadline);
  if (r.status == LineReader::Status::timeout) {
    reply.status = Reply::Status::timeout;
    reply.waited_out = true;
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
  } else if (message.contains("timeout")) {
    reply.status = Reply::Status::timeout;
    reply.error = message["timeout"].get<std::string>();
  } else if (message.contains("unsupported")) {
    reply.status = Reply::Status::unsupported;
    reply.error = message["unsupported"].get<std::string>();
  } else if (message.contains("error")) {
    reply.error = message["error"].get<std::string>();
  } else if (message.contains("spawned")) {
    reply.status = Reply::Status::ok;
    reply.agent = message["spawned"].get<pid_t>();
    reply.sibling = message.value("sibling", 0);
  } else if (message.contains("exited")) {
    reply.status = Reply::Status::ok;
    reply.exit_code = message["exited"].get<int>();
    reply.exit_signal = message.value("signal", 0);
  } else if (message.contains("killed")) {
    reply.status = Reply::Status::ok;
    reply.steps = message["killed"].get<std::vector<std::string>>();
    if (message.contains("cpu_ms")) {
      reply.cpu_ms = message["cpu_ms"].value("self", 0.0);
      reply.children_cpu_ms = message["cpu_ms"].value("children", 0.0);
    }
  } else {
    reply.error = "the reaper host sent an unknown reply: " + r.line;
  }
  return reply;
}

ReaperHost::Reply ReaperHost::wait_spawned(Clock::time_point deadline) {
  return read_reply(deadline, "spawn");
}

void ReaperHost::request_kill() {
  if (::write(command_.get(), "k", 1) == 1) return;
  if (errno == EPIPE) {
    throw std::runtime_error("the reaper host was gone before the kill was requested: " +
                             exit_description());
  }
  reaper::throw_sys("tell the reaper host to kill");
}

ReaperHost::Reply ReaperHost::wait_killed(Clock::time_point deadline) {
  return read_reply(deadline, "kill");
}

ReaperHost::Reply ReaperHost::wait_agent_exit(Clock::time_point deadline) {
  return read_reply(deadline, "the command's exit");
}

void ReaperHost::force_quit() {
  reaper::pidfd_signal(pidfd_.get(), SIGKILL);
}

}  // namespace reapcheck
