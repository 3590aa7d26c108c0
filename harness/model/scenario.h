// A scenario: the tree a fixture builds and the processes around it that no reaper may touch.
// What each reaper is expected to do with it lives apart, in expectations.h.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace reapcheck {

// One member of the tree, as the fixture builds it (fixtures/perl/tree.pl reads the same keys).
struct TreeNode {
  std::string role;
  bool setsid = false;
  bool setpgid = false;
  bool reap = true;                  // reaps its exited children, as shells and node do
  std::vector<std::string> ignore;   // signal names without SIG, e.g. "TERM"
  std::vector<std::string> exit_on;  // exits at once on these
  std::vector<std::string> exec;     // replaces itself with this program once started
  // Ignores SIGTERM and stays until the harness has staged the scenario's race, then exits
  // (the harness releases it with SIGUSR1 through its pidfd). It keeps any reaper that waits
  // for the whole tree busy until the decoy is in place, so the race window opens every time.
  bool hold = false;
  bool transient = false;  // announces itself, then exits before the kill (a double fork's middle)
  bool stop_self = false;  // announces itself, then stops itself with `stop_signal`
  // SIGSTOP, or a job-control stop (TSTP as Ctrl-Z sends it, TTIN and TTOU as a background job
  // touching its terminal gets it), which the kernel honours only outside an orphaned group.
  std::string stop_signal = "STOP";
  bool storm = false;      // answers SIGTERM by forking replacements (bounded) and exiting
  bool via_shell = false;  // started as sh -c 'exec perl ...', as pnpm runs scripts
  bool on_pty = false;     // runs on a PTY that `script` owns, hung up when `script` dies
  // "main-exits" or "fork-from-thread": its children are forked by a second thread (and with
  // main-exits its main thread then exits, so /proc shows its leader as a zombie while it lives).
  std::string threads;
  bool vfork_hold = false;  // waits in vfork() for a child that never execs: SIGSTOP cannot stop it
  // This member and every one below it are reapcheck-c-member processes forked from one another
  // without an interpreter: a scale scenario's tree at the kernel's fork speed. They have only a
  // role and children (copies and chain expand as anywhere).
  bool c_member = false;
  std::string rename;  // rewrites its argv and comm to this
  // Re-execs itself with an empty environment (env -i), as sandboxes and some launchers do: an
  // environment variable that marks the tree is gone from it and from what it starts.
  bool clear_env = false;
  // Moves itself into this cgroup v2 below its own ("web", or nested: "web/db"), created on the
  // way, before it starts its children; with `freeze`, it freezes that cgroup once announced.
  std::string cgroup;
  bool freeze = false;
  // The node fixture's child_process options: spawn with detached: true (a session of its own),
  // unref() the child, or start it with fork() (an IPC channel) instead of spawn.
  bool detached = false;
  bool unref = false;
  bool fork = false;
  std::vector<TreeNode> children;
};

// Processes outside the tree that the reaper must never signal. Every case also runs a sibling
// agent (a tree like the agent's, spawned the same way) and a process in the reaper host's own
// group; these need no entry.
enum class BystanderKind {
  lookalike,      // outside the tree, but its argv and cwd name the agent's worktree
  reaper_group,   // in the reaper host's own process group and session
  recycled_pid,   // placed on the pid of `target` once that member has exited and been reaped
  recycled_pgid,  // leads a new group with `target`'s old pgid once that group has emptied
};

struct BystanderSpec {
  BystanderKind kind;
  std::string target;  // a role in the tree, for the recycled kinds
  bool is_race() const {
    return kind == BystanderKind::recycled_pid || kind == BystanderKind::recycled_pgid;
  }
};

std::string_view to_string(BystanderKind kind);
std::optional<BystanderKind> parse_bystander_kind(std::string_view name);

// When an observed agent's tree is ready for the kill: once the condition given holds (at most
// one), and then, in every case, once the tree has gone a quiet period without a fork or exec.
struct AgentReady {
  int port = 0;      // a process of the tree listens on this TCP port
  std::string log;   // a line of the agent's output matches this (ECMAScript) regex
  int after_ms = 0;  // this long after the agent started
  bool any() const { return port != 0 || !log.empty() || after_ms != 0; }
};

// An agent that is a real program rather than a fixture tree, in one of two forms:
// - a package from fixtures/node, copied into the worktree, whose processes announce themselves
//   (`package`, `members`): the built-in npm scenarios;
// - a project's own folder (`dir`), which the tree sees through a copy-on-write layer at its own
//   path, and whose processes are found by observation: every process of the case's PID
//   namespace that is not the harness's, a bystander's or the reaper's.
struct CommandAgent {
  std::vector<std::string> command;  // e.g. npm run dev
  std::filesystem::path dir;         // absolute; set for an observed agent
  AgentReady ready;                  // for an observed agent
  std::string package;               // a folder of fixtures/node
  std::vector<std::string> members;  // the roles the package announces
  // An environment variable the harness sets to a port → the role that listens on it. After
  // the kill every such port must refuse connections.
  std::vector<std::pair<std::string, std::string>> ports;
  // A member role → how it leaves the agent's reach, in the words of its package ("spawned by
  // server.js with detached: true, which calls setsid()"): what `reproduce` tells a developer.
  std::vector<std::pair<std::string, std::string>> escapes;
  // For an observed agent: a lookalike bystander naming `dir` stands beside it (`lookalike =
  // false` in [agent] leaves it out).
  bool lookalike = true;

  bool observed() const { return !dir.empty(); }
};

// How a case is driven, beyond the tree it builds: [case] in the scenario file.
struct CaseSetup {
  enum class Request {
    reaper,               // the reaper is asked to kill the agent (the default)
    orchestrator_killed,  // the orchestrator (the reaper host) is SIGKILLed: an app force-quit
    from_agent,           // the agent runs the reaper's kill command on its own tree (tree-kill#45)
  } request = Request::reaper;
  // Signals blocked in the mask the agent's launcher hands down, as a parent that blocked them
  // does to everything it starts: the agent (or its supervisor) starts with them blocked.
  std::vector<std::string> blocked;
  // The PATH the reaper and the tree run with: a machine without procps, or with busybox's ps.
  enum class Path { standard, without_ps, busybox_ps } path = Path::standard;
};

std::string_view to_string(CaseSetup::Request request);
std::string_view to_string(CaseSetup::Path path);

// The tree builder that runs a [tree]: fixtures/perl/tree.pl or fixtures/node/tree.js.
enum class Fixture { perl, node };

std::string_view to_string(Fixture fixture);

struct Scenario {
  std::string id;  // the file's stem
  std::filesystem::path file;
  std::string description;
  std::vector<std::string> tags;
  TreeNode tree;                      // the fixture tree, unless `agent` is set
  std::optional<CommandAgent> agent;  // [agent]: a real program instead of a fixture tree
  Fixture fixture = Fixture::perl;    // which tree builder runs `tree`
  std::vector<BystanderSpec> bystanders;
  CaseSetup setup;  // [case]

  int member_count() const;  // every announced process, transient ones included
  bool has_bystander(BystanderKind kind) const;
  const BystanderSpec* race() const;  // the recycled-pid or recycled-pgid decoy, if any
  std::vector<std::string> held_roles() const;
  std::vector<std::string> transient_roles() const;
  // The transient members whose parent reaps them: gone from the process table, not zombies,
  // by the time the kill is requested.
  std::vector<std::string> reaped_transient_roles() const;
  std::vector<std::string> stopped_roles() const;
  std::vector<std::string> frozen_roles() const;
  bool uses_cgroups() const;  // a member moves into a cgroup of its own
};

Scenario load_scenario(const std::filesystem::path& file);
// Why `pattern` cannot be a ready log pattern (empty, or not an ECMAScript regex), or empty.
std::string ready_log_error(const std::string& pattern);

// A scenario for `reproduce -- CMD`: `command` run in `dir` as an observed agent.
Scenario command_scenario(std::vector<std::string> command, const std::filesystem::path& dir,
                          AgentReady ready);
Scenario parse_scenario(std::string_view text, const std::filesystem::path& file);

// A role is one word: not empty, no space and no control byte. Scenario files and readiness
// lines are held to the same rule, so a role read back from a fixture is one a scenario can name.
bool is_role(std::string_view role);

// The *.toml files in `dir`, sorted; InputError when `dir` is not a directory.
std::vector<std::filesystem::path> scenario_files(const std::filesystem::path& dir);

// Every *.toml in `dir`, sorted by id. A malformed file throws InputError (toml_reader.h),
// whose message starts with file:line:col.
std::vector<Scenario> load_scenarios(const std::filesystem::path& dir);

}  // namespace reapcheck
