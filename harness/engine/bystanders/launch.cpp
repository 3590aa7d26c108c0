// How a bystander is started: the helper (reapcheck-bystander) as a role, or as a namesake of
// the command under watch; its session, its folder, and the announcement channel it inherits.
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>

#include "harness/engine/bystanders/bystanders.h"
#include "harness/sandbox/init_reaping.h"
#include "reaper/os/clone.h"
#include "reaper/os/sys_error.h"

namespace reapcheck {

std::vector<std::string> Bystanders::env() const {
  return {"PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C", "REAPCHECK_SIGNAL_LOG=" + log_.string(),
          "REAPCHECK_READY_FD=" + std::to_string(ready_.writer()),
          "REAPCHECK_READY_SOCKET=" + ready_.socket_path()};
}

Bystanders::Launch Bystanders::launch(const std::string& role,
                                      const std::vector<std::string>& extra,
                                      const std::filesystem::path& cwd, bool own_session) const {
  std::vector<std::string> argv = {helper_, role};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return launch_as(helper_, argv, {}, cwd, own_session);
}

Bystanders::Launch Bystanders::launch_as(std::string program, const std::vector<std::string>& argv,
                                         const std::vector<std::string>& more_env,
                                         const std::filesystem::path& cwd, bool own_session) const {
  Launch l;
  l.program = std::move(program);
  l.strings = argv;
  for (auto& e : env()) l.strings.push_back(std::move(e));
  l.strings.insert(l.strings.end(), more_env.begin(), more_env.end());
  for (size_t i = 0; i < l.strings.size(); ++i) {
    (i < argv.size() ? l.argv : l.envp).push_back(l.strings[i].data());
  }
  l.argv.push_back(nullptr);
  l.envp.push_back(nullptr);
  l.cwd = cwd.string();
  l.own_session = own_session;
  return l;
}

void Bystanders::exec_helper(const Launch& l, int settled_fd) const {
  init::reset_before_exec();
  if (l.own_session) ::setsid();
  if (settled_fd >= 0) ::close(settled_fd);  // its session and group are in place
  if (!l.cwd.empty() && ::chdir(l.cwd.c_str()) != 0) ::_exit(126);
  ::fcntl(ready_.writer(), F_SETFD, 0);
  const int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);  // the dup2 copies are what stay
  ::dup2(null_fd, 0);
  ::execve(l.program.c_str(), l.argv.data(), l.envp.data());
  ::_exit(127);
}

pid_t Bystanders::begin(const std::string& role, const std::vector<std::string>& extra_args,
                        const std::filesystem::path& cwd, bool own_session) {
  return start_launched(launch(role, extra_args, cwd, own_session), role);
}

pid_t Bystanders::begin_namesake(const std::string& role, const std::vector<std::string>& command,
                                 const std::filesystem::path& cwd) {
  const std::filesystem::path link = cwd / std::filesystem::path(command.front()).filename();
  std::filesystem::create_directories(cwd);
  std::filesystem::create_symlink(helper_, link);
  std::vector<std::string> argv = command;
  argv.front() = link.filename().string();  // as a shell that found it in PATH would give it
  return start_launched(
      launch_as(link.string(), argv, {"REAPCHECK_BYSTANDER_ROLE=" + role}, cwd, true), role);
}

pid_t Bystanders::start_launched(const Launch& l, const std::string& role) {
  pid_t pid;
  {
    init::BlockChildSignals block;
    auto child = [&] { exec_helper(l); };
    pid = reaper::spawn_shared(0, child);  // a fork of PID 1 would copy its memory for nothing
    if (pid < 0) reaper::throw_sys("start bystander " + role);
    init::watch(pid);
  }
  add(pid, role, true);
  begun_.push_back(pid);
  return pid;
}

}  // namespace reapcheck
