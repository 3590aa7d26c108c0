#include "harness/engine/placement.h"

#include <signal.h>
#include <stdlib.h>

#include "reaper/os/pidfd.h"
#include "reaper/os/proc_table.h"
#include "reaper/os/sys_error.h"

namespace reapcheck {
namespace {

// The case is init of a PID namespace of its own, with a private /tmp.
class InSandbox final : public Placement {
 public:
  // In a folder of the sandbox's private /tmp, which no other case sees.
  std::filesystem::path socket_dir(const std::filesystem::path&) const override {
    std::string dir = "/tmp/reapcheck-sockets-XXXXXX";
    if (::mkdtemp(dir.data()) == nullptr) reaper::throw_sys("make a folder for the case's sockets");
    return dir;
  }
  const std::set<pid_t>* tree_sessions(const std::set<pid_t>&) const override { return nullptr; }
  // The sandbox's teardown ends them, with every other process of its namespace.
  void end_survivors(const std::vector<ProcessRecord>&, const std::set<pid_t>&) const override {}
};

class OnThisMachine final : public Placement {
 public:
  explicit OnThisMachine(bool keep) : keep_(keep) {}
  std::filesystem::path socket_dir(const std::filesystem::path& scratch) const override {
    return scratch;
  }
  const std::set<pid_t>* tree_sessions(const std::set<pid_t>& sessions) const override {
    return &sessions;
  }
  // Nothing ends a survivor for us: each is killed through a pidfd, once it is seen still in one
  // of the tree's sessions (its pid may have been recycled since the audit).
  void end_survivors(const std::vector<ProcessRecord>& survivors,
                     const std::set<pid_t>& sessions) const override {
    if (keep_) return;
    for (const auto& s : survivors) {
      auto fd = reaper::pidfd_open(s.pid);
      auto now = reaper::ProcTable::read_one(s.pid, reaper::Detail::stat);
      if (fd && now && sessions.count(now->sid) != 0) reaper::pidfd_signal(fd->get(), SIGKILL);
    }
  }

 private:
  bool keep_;
};

}  // namespace

std::unique_ptr<Placement> placement_for(const CaseOptions& options) {
  if (options.on_host) return std::make_unique<OnThisMachine>(options.on_host->keep);
  return std::make_unique<InSandbox>();
}

}  // namespace reapcheck
