// The agent in a cgroup v2 of its own. Membership is the kernel's: nothing escapes by forking,
// setsid or re-parenting. SIGTERM goes to the members through pidfds; then cgroup.kill, which
// the kernel applies to every process in the group at once, and a wait for "populated 0",
// which cgroup.events announces through poll().
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "reaper/os/cgroup_fs.h"
#include "reaper/os/deadline.h"
#include "reaper/os/pidfd.h"
#include "reaper/os/read_file.h"
#include "reaper/os/sys_error.h"
#include "reaper/reaper.h"

namespace reaper {
namespace {

constexpr std::chrono::milliseconds kDeathDeadline{5000};

}  // namespace

namespace {

class Cgroup final : public Reaper {
 public:
  explicit Cgroup(std::string parent) : parent_(std::move(parent)) {}
  ~Cgroup() override {
    for (auto& [agent, path] : groups_) ::rmdir(path.c_str());
  }

  Agent spawn(const AgentSpec& spec) override {
    const std::string parent = parent_.empty() ? cgroup_home() : parent_;
    if (parent.empty()) throw Unsupported("no cgroup v2 hierarchy is mounted");
    std::string path;
    for (int n = 0;; ++n) {  // a name nobody holds yet
      path = parent + "/reapcheck-agent-" + std::to_string(::getpid()) + "-" + std::to_string(n);
      if (::mkdir(path.c_str(), 0755) == 0) break;
      if (errno != EEXIST || n > 1000) {
        throw Unsupported("cannot create a cgroup under " + parent + ": " + std::strerror(errno));
      }
    }
    try {
      Agent agent = spawn_agent(spec, {.cgroup = path});
      groups_.emplace(agent.pid(), path);
      return agent;
    } catch (...) {
      ::rmdir(path.c_str());
      throw;
    }
  }

  KillReport kill(Agent& agent, std::chrono::milliseconds grace) override {
    KillReport report;
    auto it = groups_.find(agent.pid());
    if (it == groups_.end()) throw std::logic_error("cgroup: not an agent of ours");
    const std::string& path = it->second;
    if (grace.count() > 0) {
      int sent = 0;
      std::istringstream procs(read_file(path + "/cgroup.procs"));
      pid_t pid;
      while (procs >> pid) {
        // The pid was listed as a member; with the pidfd open, check it still is one.
        auto fd = pidfd_open(pid);
        if (!fd) continue;
        if (read_file("/proc/" + std::to_string(pid) + "/cgroup")
                    .find(path.substr(path.rfind('/'))) == std::string::npos ||
            pidfd_exited(fd->get())) {
          continue;
        }
        sent += pidfd_signal(fd->get(), SIGTERM) ? 1 : 0;
      }
      report.note("SIGTERM via pidfd to " + std::to_string(sent) + " members of " + path);
      if (wait_empty(path, grace)) report.note("the cgroup emptied within the grace period");
    }
    std::ofstream(path + "/cgroup.kill") << "1";
    report.note("cgroup.kill on " + path);
    if (!wait_empty(path, kDeathDeadline)) report.note("still populated after cgroup.kill");
    agent.reap_if_exited();
    if (::rmdir(path.c_str()) == 0) groups_.erase(it);
    return report;
  }

 private:
  std::string parent_;                   // empty: this process's own cgroup
  std::map<pid_t, std::string> groups_;  // by agent pid
};

}  // namespace

ReaperInfo cgroup_strategy() {
  return {"cgroup",
          "the agent in a cgroup v2 of its own: SIGTERM, grace, cgroup.kill, wait for populated 0",
          [](const ReaperConfig& config) -> std::unique_ptr<Reaper> {
            return std::make_unique<Cgroup>(config.cgroup_parent);
          }};
}

}  // namespace reaper
