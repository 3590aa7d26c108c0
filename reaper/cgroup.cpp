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

#include "cgroup_home.h"
#include "deadline.h"
#include "pidfd.h"
#include "strategies.h"
#include "sys_error.h"

namespace reaper {
namespace {

constexpr std::chrono::milliseconds kDeathDeadline{5000};

}  // namespace

std::string cgroup_home() {
  if (const char* p = std::getenv("REAPCHECK_CGROUP_PARENT"); p != nullptr && *p != '\0') return p;
  std::ifstream mounts("/proc/self/mountinfo");
  std::string line, mount_point;
  while (std::getline(mounts, line)) {
    // "... - cgroup2 cgroup2 rw": the mount point is the fifth field.
    if (line.find(" - cgroup2 ") == std::string::npos) continue;
    std::istringstream in(line);
    std::string field;
    for (int i = 0; i < 5 && in >> field; ++i) mount_point = field;
    break;
  }
  if (mount_point.empty()) return {};
  std::ifstream self("/proc/self/cgroup");
  while (std::getline(self, line)) {
    if (line.rfind("0::", 0) == 0) {
      std::string path = mount_point + line.substr(3);
      while (path.size() > 1 && path.back() == '/') path.pop_back();
      return path;
    }
  }
  return mount_point;
}

namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool populated(const std::string& cgroup) {
  return read_all(cgroup + "/cgroup.events").find("populated 1") != std::string::npos;
}

}  // namespace

// cgroup.events raises POLLPRI on every change.
bool wait_empty(const std::string& cgroup, std::chrono::milliseconds timeout) {
  UniqueFd events(::open((cgroup + "/cgroup.events").c_str(), O_RDONLY | O_CLOEXEC));
  if (!events) throw_sys("open " + cgroup + "/cgroup.events");
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (populated(cgroup)) {
    auto left = time_left(deadline);
    if (left.count() <= 0) return false;
    pollfd p{events.get(), POLLPRI, 0};
    ::poll(&p, 1, static_cast<int>(left.count()));
  }
  return true;
}

namespace {

class Cgroup final : public Reaper {
 public:
  ~Cgroup() override {
    for (auto& [agent, path] : groups_) ::rmdir(path.c_str());
  }

  Agent spawn(const AgentSpec& spec) override {
    const std::string parent = cgroup_home();
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
      std::istringstream procs(read_all(path + "/cgroup.procs"));
      pid_t pid;
      while (procs >> pid) {
        // The pid was listed as a member; with the pidfd open, check it still is one.
        auto fd = pidfd_open(pid);
        if (!fd) continue;
        if (read_all("/proc/" + std::to_string(pid) + "/cgroup")
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
  std::map<pid_t, std::string> groups_;  // by agent pid
};

}  // namespace

std::unique_ptr<Reaper> make_cgroup() {
  return std::make_unique<Cgroup>();
}

}  // namespace reaper
