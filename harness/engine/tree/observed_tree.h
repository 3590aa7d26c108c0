// An observed agent's tree (a project's own command): its processes are found in the case's PID
// namespace rather than announced, named from what they run, and the kill is requested once the
// tree is ready as the scenario says and then quiet.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "harness/engine/census/census.h"
#include "harness/engine/census/processes.h"
#include "harness/engine/tree/audit.h"
#include "harness/model/scenario.h"
#include "reaper/os/proc_table.h"

namespace reapcheck {

// How long the tree must go without a fork or an exec before the kill is requested.
inline constexpr std::chrono::milliseconds kQuietPeriod{500};

// Who stands around an observed tree, for observed_tree().
struct TreeBounds {
  pid_t agent = 0;
  // Processes whose descendants are theirs, never the tree's: the bystanders (the sibling agent's
  // tree among them) and their ancestors below the reaper host.
  std::set<pid_t> bystanders;
  // The harness's and the reaper's own processes, which adopt orphans: the namespace's init, the
  // reaper host (a subreaper strategy's, or its shims), a supervisor. What is below them is the
  // tree's when it runs outside the harness's session (an orphan of the tree, re-parented there),
  // and theirs when it runs in it (a helper they started).
  std::set<pid_t> adopters;
  pid_t harness_sid = 0;
};

// Every process of the tree in `table`: the agent, whatever descends from it, and the orphans of
// the tree the adopters took in (a double fork's daemon) — but no adopter, and nothing at or below
// a bystander. The PID namespace is the lineage the kernel keeps once a parent has exited.
std::vector<const reaper::ProcInfo*> observed_tree(const reaper::ProcTable& table,
                                                   const TreeBounds& bounds);

// A role from what a process runs: the program, and for an interpreter its script ("node vite",
// "python3 worker.py", "sh -c"), or a program's first option ("esbuild --service").
std::string role_of(const reaper::ProcInfo& p);

// What the readiness wait watches.
struct ReadyWatch {
  AgentReady ready;
  int agent_pidfd = -1;                                  // the agent's exit ends the wait, unready
  std::filesystem::path log;                             // the agent's output, for `ready.log`
  std::function<std::vector<std::string>()> tree_state;  // changes with every fork and exec
  std::chrono::steady_clock::time_point deadline;
  std::chrono::milliseconds quiet = kQuietPeriod;
};

// Waits until the tree is ready: the condition holds, then the tree has been quiet for
// `quiet`. Empty when it is; otherwise why it is not (the agent exited, or what was still awaited
// when the deadline passed). No event announces a listen() or a fork to an unprivileged
// observer, so each is looked for, backing off between looks; the agent's exit ends a wait at once.
std::string await_ready(const ReadyWatch& watch);

// The last `bytes` bytes of `file` (less when it is shorter), read from its end.
std::string read_tail(const std::filesystem::path& file, size_t bytes);

// An observed tree at readiness: its members, each held by a pidfd and registered in the census,
// named from what it runs ("agent" for the agent), and the ports they listen on, with the role
// of the member that holds each.
struct ObservedTree {
  std::vector<Member> members;
  std::vector<std::pair<int, std::string>> ports;
};

// Waits for the tree inside `bounds`, among `processes`, to be ready as `watch` says (its
// `tree_state` is filled in here), then takes it: an ObservedTree, or why it never became ready,
// with the processes seen then. A zombie is no member: it is dead already.
std::variant<ObservedTree, std::string> observe_when_ready(const Processes& processes,
                                                           const TreeBounds& bounds,
                                                           ReadyWatch watch, Census& census);

// The state `ReadyWatch::tree_state` compares: one line per process (pid, start time, argv) and
// the namespace's last allocated pid (Processes::last_pid()), which a fork moves even when its
// child is already gone.
std::vector<std::string> tree_state(const std::vector<const reaper::ProcInfo*>& tree,
                                    std::string last_pid);

}  // namespace reapcheck
