#include "reaper/agent.h"

#include <fcntl.h>
#include <pty.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <thread>

#include "reaper/os/clone.h"
#include "reaper/os/deadline.h"
#include "reaper/os/pidfd.h"
#include "reaper/os/sys_error.h"

namespace reaper {
namespace {

// Runs in the child, forked or sharing the parent's memory (spawn_shared: system calls only);
// reports a failure through `err_fd` (CLOEXEC, so a successful exec closes it and the parent
// reads EOF).
// `in_cgroup`: it was cloned into options.cgroup already.
[[noreturn]] void exec_child(const AgentSpec& spec, const SpawnOptions& options, bool in_cgroup,
                             int pty_slave, int err_fd, int parent_pidfd, const char* program,
                             char* const* argv, char* const* envp) {
  auto fail = [&](int step) {
    int msg[2] = {step, errno};
    (void)!::write(err_fd, msg, sizeof msg);
    ::_exit(127);
  };
  // The host may block or ignore signals; the agent starts with default dispositions and the
  // mask its launcher hands down (usually none blocked).
  sigset_t mask;
  sigemptyset(&mask);
  for (int sig : spec.blocked_signals) sigaddset(&mask, sig);
  ::sigprocmask(SIG_SETMASK, &mask, nullptr);
  for (int sig = 1; sig < NSIG; ++sig) ::signal(sig, SIG_DFL);

  if (::setsid() < 0) fail(0);
  // The parent may have died before the prctl: its pidfd says so.
  if (options.die_with_parent &&
      (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || pidfd_exited(parent_pidfd))) {
    fail(7);
  }
  if (!options.cgroup.empty() && !in_cgroup) {
    int fd = ::open((options.cgroup + "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0 || ::write(fd, "0", 1) != 1) fail(6);
    ::close(fd);
  }
  if (options.pty) {
    if (::ioctl(pty_slave, TIOCSCTTY, 0) < 0) fail(1);
    for (int fd = 0; fd < 3; ++fd) ::dup2(pty_slave, fd);
  } else {
    int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);  // the dup2 copies are what stay
    if (null_fd < 0) fail(2);
    int out = spec.output_fd >= 0 ? spec.output_fd : null_fd;
    ::dup2(null_fd, 0);
    ::dup2(out, 1);
    ::dup2(out, 2);
  }
  for (int fd : spec.inherit_fds) {
    if (::fcntl(fd, F_SETFD, 0) < 0) fail(3);
  }
  if (!spec.cwd.empty() && ::chdir(spec.cwd.c_str()) < 0) fail(4);
  ::execvpe(program, argv, envp);
  fail(5);
  ::_exit(127);  // not reached: fail() exits
}

}  // namespace

std::vector<char*> c_strings(const std::vector<std::string>& v) {
  std::vector<char*> out;
  out.reserve(v.size() + 1);
  for (const auto& s : v) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

std::string program_of(const AgentSpec& spec) {
  const std::string& name = spec.argv.front();
  if (name.find('/') != std::string::npos) return name;
  const auto path = std::find_if(spec.env.begin(), spec.env.end(),
                                 [](const std::string& e) { return e.rfind("PATH=", 0) == 0; });
  if (path == spec.env.end()) return name;
  const std::string dirs = path->substr(5);
  size_t start = 0;
  while (start <= dirs.size()) {
    const size_t end = std::min(dirs.find(':', start), dirs.size());
    std::string dir = dirs.substr(start, end - start);
    start = end + 1;
    if (dir.empty()) dir = ".";
    if (dir.front() != '/' && !spec.cwd.empty()) dir.insert(0, spec.cwd + "/");
    std::string candidate = dir;
    candidate += '/';
    candidate += name;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return name;
}

Agent spawn_agent(const AgentSpec& spec, const SpawnOptions& options) {
  if (spec.argv.empty()) throw std::invalid_argument("spawn_agent: empty argv");
  UniqueFd master, slave;
  if (options.pty) {
    int m, s;
    if (::openpty(&m, &s, nullptr, nullptr, nullptr) != 0) throw_sys("openpty");
    master.reset(m);
    slave.reset(s);
    ::fcntl(m, F_SETFD, FD_CLOEXEC);
    ::fcntl(s, F_SETFD, FD_CLOEXEC);
  }
  auto argv = c_strings(spec.argv);
  auto envp = c_strings(spec.env);
  const std::string program = program_of(spec);
  Pipe err = make_pipe();
  std::optional<UniqueFd> self;
  if (options.die_with_parent) self = pidfd_open(::getpid());

  const int ns = options.new_pid_namespace ? CLONE_NEWPID : 0;
  bool in_cgroup = false;
  auto child = [&] {
    exec_child(spec, options, in_cgroup, slave.get(), err.write.get(), self ? self->get() : -1,
               program.c_str(), argv.data(), envp.data());
  };
  // Sharing this process's memory until the exec, as posix_spawn does, copies none of it. Only
  // clone3 starts a child in a cgroup, and clone3 on a stack of its own needs assembly: there
  // the child is a fork.
  const pid_t pid = options.cgroup.empty() ? spawn_shared(ns, child)
                                           : clone_child(ns, options.cgroup, &in_cgroup);
  if (pid < 0) {
    throw_sys(std::string(ns ? "clone(CLONE_NEWPID)" : "clone") +
              (options.cgroup.empty() ? "" : " into " + options.cgroup));
  }
  if (pid == 0) child();

  err.write.reset();
  slave.reset();
  auto pidfd = pidfd_open(pid);  // our unreaped child: it cannot be gone yet
  if (!pidfd) throw_sys("pidfd_open(agent)", ESRCH);
  int msg[2];
  ssize_t n;
  do {
    n = ::read(err.read.get(), msg, sizeof msg);
  } while (n < 0 && errno == EINTR);
  if (n == static_cast<ssize_t>(sizeof msg)) {
    ::waitpid(pid, nullptr, 0);
    const std::string steps[] = {"setsid",
                                 "TIOCSCTTY",
                                 "open /dev/null",
                                 "keep fds open",
                                 "chdir " + spec.cwd,
                                 "exec",
                                 "join cgroup " + options.cgroup,
                                 "die with the parent"};
    const std::string& what = steps[msg[0]];
    throw std::runtime_error("cannot start agent '" + spec.argv[0] + "': " + what + ": " +
                             std::strerror(msg[1]));
  }
  return Agent(pid, std::move(*pidfd), std::move(master));
}

bool Agent::reap_if_exited() {
  if (reaped_) return true;
  if (!is_child_) return reaped_ = pidfd_exited(pidfd_.get());
  siginfo_t info{};
  if (::waitid(P_PIDFD, static_cast<id_t>(pidfd_.get()), &info, WEXITED | WNOHANG) < 0) {
    if (errno == ECHILD) return reaped_ = true;
    throw_sys("waitid(agent)");
  }
  return reaped_ = info.si_pid != 0;
}

bool Agent::wait_exit(std::chrono::steady_clock::time_point until) {
  if (!reaped_ && pidfd_wait_exit(pidfd_.get(), time_left(until))) reap_if_exited();
  return reaped_;
}

bool Agent::wait_reaping(std::chrono::steady_clock::time_point until) {
  wait_exit(until);
  // Exited early or not, the caller's timer runs to its end: it models a runtime timer
  // (setTimeout) in the technique under test, not a wait for an event.
  std::this_thread::sleep_until(until);
  return reaped_;
}

}  // namespace reaper
