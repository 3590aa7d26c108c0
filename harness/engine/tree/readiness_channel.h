// The channel fixture members announce themselves on: a SOCK_SEQPACKET socket with
// SO_PASSCRED, so the kernel attaches to every line the sender's pid as the runner sees it.
// That keeps announcements right when the agent lives in a PID namespace of its own (the pidns
// reaper), where the pid a member writes is not the pid the runner must watch.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "harness/engine/census/processes.h"
#include "harness/engine/tree/announcements.h"
#include "reaper/os/unique_fd.h"

namespace reapcheck {

class ReadinessChannel final : public Announcements {
 public:
  // With a `socket_path`, members may also connect to a Unix stream socket there and write their
  // line: a path survives what an inherited fd does not (npm closes the fds it does not know).
  explicit ReadinessChannel(const std::string& socket_path = {});

  int writer() const { return writer_.get(); }  // inherited by the agent's tree
  const std::string& socket_path() const { return socket_path_; }
  void close_writer() { writer_.reset(); }  // then EOF means the whole tree is gone

  Message next(std::chrono::steady_clock::time_point deadline) override;

 private:
  bool next_from_connection(Message& m);

  reaper::UniqueFd reader_;
  reaper::UniqueFd writer_;
  std::string socket_path_;
  reaper::UniqueFd listener_;
  struct Connection {
    reaper::UniqueFd fd;
    pid_t peer;
    std::string buffer;
  };
  std::vector<Connection> connections_;
};

// The pid, in this namespace, of the process a member called `announced` in its own: the
// sender itself, its parent (a member held in vfork(), announced by its child), or the sender's
// child (a member that exec'd, announced by its parent) with that namespace-local pid, as
// `processes` show them. 0 when none matches.
pid_t translate_announced_pid(const Processes& processes, pid_t announced, pid_t sender);

}  // namespace reapcheck
