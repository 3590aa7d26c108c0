// The agent in a cgroup v2 of its own. Membership is the kernel's: nothing escapes by forking,
// setsid or re-parenting. SIGTERM goes to the members through pidfds; then cgroup.kill, which
// the kernel applies to every process in the group and the groups below it at once, and a wait
// for "populated 0", which cgroup.events announces through poll(). A group outlives the process
// that made it, so a keeper process holds it: if the reaper's process dies without killing the
// group (an orchestrator SIGKILLed), the keeper writes cgroup.kill, as a service manager does for
// a unit whose main process died.
#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

void kill_group(const std::string& path) {
  std::ofstream(path + "/cgroup.kill") << "1";
}

// The keeper of one group: a child that waits on a pipe only the reaper's process holds. EOF
// with no word first means that process died (or gave the group up) without killing the group:
// the keeper kills it. The word "done" after a completed kill lets it go quietly.
class Keeper {
 public:
  explicit Keeper(const std::string& path) {
    Pipe pipe = make_pipe();  // close-on-exec: an agent spawned later never holds it
    pid_ = ::fork();
    if (pid_ < 0) throw_sys("fork the keeper of " + path);
    if (pid_ == 0) {
      pipe.write.reset();
      keep(pipe.read.get(), path);
    }
    line_ = std::move(pipe.write);
  }
  ~Keeper() {
    line_.reset();  // without a word first: the keeper kills the group, if anything is left
    if (pid_ > 0) ::waitpid(pid_, nullptr, 0);
  }
  Keeper(const Keeper&) = delete;
  Keeper& operator=(const Keeper&) = delete;

  void release() {
    (void)!::write(line_.get(), "done", 4);
    line_.reset();
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

 private:
  [[noreturn]] static void keep(int fd, const std::string& path) {
    // Nothing of the reaper's process but the pipe: its other fds must close when it dies.
    ::close_range(3, static_cast<unsigned>(fd) - 1, 0);
    ::close_range(static_cast<unsigned>(fd) + 1, ~0U, 0);
    char word[4];
    ssize_t n;
    do {
      n = ::read(fd, word, sizeof word);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) kill_group(path);
    ::_exit(0);
  }

  pid_t pid_ = -1;
  UniqueFd line_;
};

}  // namespace

namespace {

class Cgroup final : public Reaper {
 public:
  explicit Cgroup(std::string parent) : parent_(std::move(parent)) {}
  ~Cgroup() override {
    keepers_.clear();
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
      auto keeper = std::make_unique<Keeper>(path);
      Agent agent = spawn_agent(spec, {.cgroup = path});
      groups_.emplace(agent.pid(), path);
      keepers_.emplace(agent.pid(), std::move(keeper));
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
    kill_group(path);
    report.note("cgroup.kill on " + path);
    if (!wait_empty(path, kDeathDeadline)) report.note("still populated after cgroup.kill");
    if (auto k = keepers_.find(agent.pid()); k != keepers_.end()) {
      k->second->release();
      keepers_.erase(k);
    }
    agent.reap_if_exited();
    if (::rmdir(path.c_str()) == 0) groups_.erase(it);
    return report;
  }

 private:
  std::string parent_;                   // empty: this process's own cgroup
  std::map<pid_t, std::string> groups_;  // by agent pid
  std::map<pid_t, std::unique_ptr<Keeper>> keepers_;
};

}  // namespace

ReaperInfo cgroup_strategy() {
  return {"cgroup",
          "the agent in a cgroup v2 of its own, held by a keeper: SIGTERM, grace, cgroup.kill, "
          "wait for populated 0",
          [](const ReaperConfig& config) -> std::unique_ptr<Reaper> {
            return std::make_unique<Cgroup>(config.cgroup_parent);
          },
          "a writable cgroup v2 subtree (root, or one delegated to the user) and Linux 5.14 for "
          "cgroup.kill"};
}

}  // namespace reaper
