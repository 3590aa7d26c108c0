// Who is who inside a case's sandbox, at any instant: the tree's announced members and their
// descendants, the bystanders, the reaper's own processes, the harness. The signal ledger asks
// it about every signal's sender and target while the sender waits, so the answer is the one
// that held when the call was made. Safe to call from the ledger's thread while the case's
// thread registers newcomers.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "harness/model/result.h"
#include "reaper/os/unique_fd.h"

namespace reapcheck {

class Census {
 public:
  // The case runner is this process.
  Census();

  void set_reaper_host(pid_t pid);
  // A process of the reaper's that stands above the tree: the supervisor the agent runs under.
  void add_reaper(pid_t pid, const std::string& name, int pidfd);
  // An announced member, held by a pidfd of the census's own (a duplicate of `pidfd`).
  void add_member(pid_t pid, const std::string& role, int pidfd);
  // A process the reaper must leave alone.
  void add_bystander(pid_t pid, const std::string& role, int pidfd);
  // An observed agent's tree (a project's own command) announces nothing: until the kill is
  // requested, an orphan of the namespace's init that no one else claims is the tree's (a daemon
  // it double-forked), not the reaper's, which has not acted yet. From then on it is judged by
  // its session, as any other.
  void claim_orphans_until_kill(bool claim);
  // `child` was forked by `parent` (the kernel's fork event, kernel_signal_trace.h): its lineage,
  // which holds however it detaches later. A second birth at a pid means the pid was reused:
  // what was registered there and has exited no longer names it.
  void note_birth(pid_t parent, pid_t child);
  // Whether `pid`'s birth is known (its fork event has arrived): until it has, who() judges it
  // by its parent links and session now.
  bool born_known(pid_t pid) const;
  // The process that forked `pid`, by the kernel's fork events; empty when its birth is unknown.
  std::optional<pid_t> born_of(pid_t pid) const;
  // Every birth the fork events recorded: child → the process that forked it.
  std::map<pid_t, pid_t> births() const;
  // From now on, each fork event also reads what its parent runs (forked_as()): `watch` names the
  // chain that started a leak from it. Off otherwise: a fork storm's thousands of events would
  // each read /proc for nothing.
  void keep_forkers_names() { keep_names_ = true; }
  // What `pid` ran when it last forked (its argv, read as its fork event arrived): the name of a
  // process that has exited since, for the chain that started a process of `watch`; empty when
  // it never forked, could not be read, or keep_forkers_names() was not asked for.
  std::vector<std::string> forked_as(pid_t pid) const;
  // The folder `pid` worked in when it last forked (its cwd, read with its argv): where a test
  // runner that has exited since ran; empty as for forked_as().
  std::string forked_in(pid_t pid) const;
  // Whether the kernel's fork events show `pid` forked on the reaper's side, all the way up: by
  // the reaper host or a registered process of the reaper's, through no member and no
  // bystander. The reaper's own, however it detached, never the tree's.
  bool born_of_reaper(pid_t pid) const;
  // The process the reaper host started that `pid` descends from by birth (the reaper's
  // command, a supervisor, or `pid` itself), through no member and no bystander; empty when the
  // fork events do not show one.
  std::optional<pid_t> reaper_root(pid_t pid) const;

  // What `pid` holds now; empty when nothing is there (no process, not even a zombie).
  std::optional<Party> who(pid_t pid) const;
  // What `pid` holds now, or else the process registered there that has since been reaped:
  // for a signal the kernel sent a moment ago, which its target may have died of already.
  std::optional<Party> who_or_was(pid_t pid) const;
  // Every process whose group (or, with `session`, session) id is `id`, now.
  std::vector<Party> with_id(pid_t id, bool session = false) const;
  // Every process `kill(-1)` from `sender` reaches now: all but PID 1 and the sender itself.
  std::vector<Party> everyone_but(pid_t sender) const;

  // The announced members that have exited, as "role (pid N)", those in `except` aside.
  std::vector<std::string> dead_members(const std::set<pid_t>& except = {}) const;
  // The announced members that catch no signal yet exited by exit(), not by a signal: no signal
  // can have made them, so they ended on their own.
  std::vector<std::string> exited_unbidden() const;

  // The members a death of process `pid` (of session `sid`) may take along: its children, and,
  // when it led its session, the session (a hang-up when a terminal's owner dies).
  std::vector<pid_t> dependants(pid_t pid, pid_t sid) const;
  // The parent and session `member` had when it was registered; nothing for a process never
  // registered as a member.
  std::optional<std::pair<pid_t, pid_t>> origin(pid_t member) const;

 private:
  struct Known {
    std::string role;
    reaper::UniqueFd pidfd;
    pid_t sid = 0;
    pid_t ppid = 0;           // when it was registered
    bool catches = true;      // has a handler for some signal (SigCgt), when it was registered
    bool superseded = false;  // exited, and its pid was born again since
  };
  // `pid` is still the process `known` holds (alive, or a zombie not yet reaped).
  static bool still(const Known& known, pid_t pid);
  static bool alive(pid_t pid);  // not a zombie: its pidfd has not fired
  std::optional<Party> who_locked(pid_t pid) const;
  std::optional<Party> by_ancestry(pid_t pid) const;
  // What the fork events make `pid`: the first registered process on its birth line (exited or
  // not: a daemon whose parent member has died is still the tree's), or the reaper's when the
  // line reaches the reaper host through none. Empty when a birth on the line is unknown.
  std::optional<Party> by_lineage(pid_t pid, const std::string& name) const;

  mutable std::mutex mutex_;
  pid_t runner_;
  pid_t runner_sid_;  // the harness's own session, which tells nobody apart
  pid_t host_ = 0;
  bool orphans_are_tree_ = false;
  std::map<pid_t, Known> members_;
  std::map<pid_t, Known> bystanders_;
  std::map<pid_t, Known> reapers_;
  std::map<pid_t, pid_t> births_;  // child → the process that forked it
  // What a process that forked ran, and where, at its last fork.
  struct Forker {
    std::vector<std::string> argv;
    std::string cwd;
  };
  std::map<pid_t, Forker> forked_as_;  // parent → itself at its last fork
  std::atomic<bool> keep_names_{false};
};

// Whether a process of parent `ppid` and session `sid` is one the death of `dead` (of session
// `dead_sid`) may take along: its child, or of the session it led (dependants()).
constexpr bool taken_along(pid_t ppid, pid_t sid, pid_t dead, pid_t dead_sid) {
  return ppid == dead || (dead == dead_sid && sid == dead_sid);
}

}  // namespace reapcheck
