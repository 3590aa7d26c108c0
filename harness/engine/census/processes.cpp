#include "harness/engine/census/processes.h"

#include <unistd.h>

#include "harness/engine/census/ports.h"
#include "reaper/os/pidfd.h"
#include "reaper/os/read_file.h"

namespace reapcheck {
namespace {

class KernelProcesses final : public Processes {
 public:
  reaper::ProcTable table(reaper::Detail detail) const override {
    return reaper::ProcTable::read("/proc", detail);
  }
  std::optional<reaper::ProcInfo> one(pid_t pid, reaper::Detail detail) const override {
    return reaper::ProcTable::read_one(pid, detail);
  }
  std::optional<reaper::UniqueFd> hold(pid_t pid) const override { return reaper::pidfd_open(pid); }
  bool lives_on(pid_t pid, int pidfd) const override { return reapcheck::lives_on(pid, pidfd); }
  Activity activity(pid_t pid, int pidfd, const Census& census,
                    Clock::time_point horizon) const override {
    return reapcheck::activity(pid, pidfd, census, {}, horizon);
  }
  ThreadRuns thread_runs(const std::vector<pid_t>& pids) const override {
    return reapcheck::thread_runs(pids);
  }
  bool signal(int pidfd, int sig) const override { return reaper::pidfd_signal(pidfd, sig); }
  bool reaped(int pidfd) const override {
    return reaper::pidfd_target(::getpid(), pidfd).value_or(-1) == -1;
  }
  std::string status_field(pid_t pid, std::string_view field) const override {
    return reaper::status_field(pid, field);
  }
  std::string last_pid() const override {
    const std::string load = reaper::read_file("/proc/loadavg");
    const auto space = load.find_last_of(' ');
    return space == std::string::npos ? load : load.substr(space + 1);
  }
  std::vector<std::pair<int, pid_t>> ports_held_by(const std::vector<pid_t>& pids) const override {
    return reapcheck::ports_held_by(pids);
  }
};

}  // namespace

const Processes& kernel_processes() {
  static const KernelProcesses kernel;
  return kernel;
}

}  // namespace reapcheck
