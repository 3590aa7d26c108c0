// Bystanders: processes outside the agent's tree that no reaper may signal. Each runs
// reapcheck-bystander, which logs every catchable signal it receives; SIGKILL and SIGSTOP,
// which cannot be caught, are seen from outside (exit status, pidfd, /proc state). The stages
// after set-up see them as a BystanderWatch (bystander_watch.h).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "harness/engine/bystanders/bystander_watch.h"
#include "harness/engine/census/census.h"
#include "harness/engine/tree/readiness_channel.h"
#include "harness/model/result.h"
#include "reaper/os/unique_fd.h"

namespace reapcheck {

class Bystanders final : public BystanderWatch {
 public:
  // Each bystander is `helper` (reapcheck-bystander's path), registered with `census` as it
  // starts or announces itself. Its files go in `scratch`, its readiness socket in `sockets`
  // (scratch by default).
  Bystanders(std::string helper, const std::filesystem::path& scratch, Census& census,
             const std::filesystem::path& sockets = {});
  ~Bystanders() override;  // SIGKILLs every bystander through its pidfd
  Bystanders(const Bystanders&) = delete;
  Bystanders& operator=(const Bystanders&) = delete;

  // What a bystander started elsewhere (the sibling agent's tree, which the reaper host spawns)
  // needs: its environment and the readiness fd it must inherit.
  std::vector<std::string> env() const override;
  int ready_fd() const override { return ready_.writer(); }

  // Starts a bystander as the caller's child and waits until it is ready.
  void start(const std::string& role, const std::vector<std::string>& extra_args,
             const std::filesystem::path& cwd, bool own_session, Clock::time_point deadline);

  // Starts a bystander as the caller's child without waiting: its start-up then overlaps the
  // agent's, and await_begun() waits, before the kill, until every one begun is ready.
  pid_t begin(const std::string& role, const std::vector<std::string>& extra_args,
              const std::filesystem::path& cwd, bool own_session);
  void await_begun(Clock::time_point deadline) override;

  // Starts, as begin() does, a bystander that looks like `command` run from `cwd` (a fresh folder
  // of the case's): its name the command's program's and its command line the command itself,
  // so that a kill by name (`pkill cargo`, `killall node`, `pkill -f 'npm test'`) reaches it.
  // The helper is run through a link in `cwd` named as the program: the kernel names a process
  // after the file it executes.
  pid_t begin_namesake(const std::string& role, const std::vector<std::string>& command,
                       const std::filesystem::path& cwd);

  // One attempt to start a decoy on exactly `pid`, leading its own session and group (so it
  // also holds `pid` as a process-group id). False while the pid is still taken.
  bool try_place_decoy(pid_t pid, const std::string& role) override;

  // Registers the bystander that announces itself as `role`, started by the reaper host —
  // perhaps under a supervisor, so not necessarily the process the host spawned.
  void adopt(const std::string& role, Clock::time_point deadline) override;

  // The role of the bystander at `pid`, or empty.
  std::string role_of(pid_t pid) const;

  std::set<pid_t> pids() const;

  // The bystanders and, for each, its ancestors below `host`: a reaper's own processes that
  // stand between it and a bystander (a subreaper's shim for the sibling agent).
  std::set<pid_t> pids_with_ancestors_below(pid_t host) const override;

  // Waits, until `deadline`, for every signal already sent to a bystander to take effect:
  // kill() only queues a signal, so a SIGKILL sent just before the reaper reported done may
  // still be pending. Call before hits().
  void settle(Clock::time_point deadline) const override;

  // Notes what harm without a signal would change of each bystander: its cgroup, its
  // oom_score_adj, its tracer, its priority and scheduling policy, its resource limits. Call
  // before the kill; hits() then reports each attribute left changed.
  void note_attributes() override;

  // Every signal a bystander received so far, and any bystander killed, stopped, frozen or with
  // an attribute left changed since note_attributes(). A bystander
  // that is not the harness's child (the sibling agent's tree) shows only that it died, not how:
  // its signal is "unknown" unless the signal ledger saw it sent.
  std::vector<BystanderHit> hits() const override;

 private:
  struct Entry {
    pid_t pid;
    std::string role;
    reaper::UniqueFd pidfd;
    bool our_child;
    std::map<std::string, std::string> attributes;  // as note_attributes() found them
  };
  // Everything a new bystander's exec needs, built before the fork: the child of a process with
  // a second thread (the signal ledger's) may not allocate before exec.
  struct Launch {
    std::string program;               // what is executed
    std::vector<std::string> strings;  // argv then environment
    std::vector<char*> argv;
    std::vector<char*> envp;
    std::string cwd;
    bool own_session = false;
  };
  // The helper as `role` (its first argument), `extra` after it.
  Launch launch(const std::string& role, const std::vector<std::string>& extra,
                const std::filesystem::path& cwd, bool own_session) const;
  // `program` run with `argv` and the helpers' environment and `env`.
  Launch launch_as(std::string program, const std::vector<std::string>& argv,
                   const std::vector<std::string>& env, const std::filesystem::path& cwd,
                   bool own_session) const;
  pid_t start_launched(const Launch& l, const std::string& role);
  // In the forked child: its session (if asked), then exec. `settled_fd`, when given, is closed
  // once the session and group are in place, which its parent waits for.
  [[noreturn]] void exec_helper(const Launch& launch, int settled_fd = -1) const;
  void add(pid_t pid, const std::string& role, bool our_child);
  void await(pid_t pid, Clock::time_point deadline);
  std::vector<pid_t> begun_;  // started by begin(), not yet known to be ready
  void read_announcement(const std::string& awaited, Clock::time_point deadline);

  Census& census_;
  std::string helper_;
  std::filesystem::path log_;
  ReadinessChannel ready_;
  std::map<pid_t, std::string> announced_;  // pid → role
  std::vector<Entry> entries_;
};

}  // namespace reapcheck
