// Presets: well-known external reapers, each run as its users run it, one entry each. Each needs
// an expectations file, scenarios/expectations/<id>.toml, like a built-in strategy. Their helper
// scripts are in fixtures/reapers/, their npm packages (pinned by lock files) in fixtures/node/.
#include <debian_packages.h>

#include <string>
#include <vector>

#include "harness/catalog/catalog.h"
#include "harness/support/layout.h"

namespace reapcheck {
namespace {

// One preset: how it is run, what it does in a line (the technique before the command), what it
// needs of the machine, what must be installed, and the grace period its own timers keep.
struct Preset {
  std::string id;
  bool supervises;      // supervise: the agent runs under `command`; else exec: at kill time
  std::string command;  // {pid} {pgid} {sid} {worktree} {grace_s} filled in for exec:
  std::string does;
  std::string requires_what;
  std::vector<Need> needs;
  int min_grace_ms = 0;
};

// `program` (or an absolute path), from the Debian package packaging/debian-packages names for
// it: a program the list does not name fails the build.
Need debian(debian::Program program) {
  return {std::string(program.name), "Debian package " + std::string(program.package)};
}

// The presets' files in the fixtures folder: their helper scripts and npm packages.
struct Fixtures {
  std::filesystem::path dir;

  Need npm_package(const std::string& name) const {
    return {(dir / "node" / name / "node_modules").string(),
            "npm ci in fixtures/node/" + name + "; scripts/setup.sh runs it"};
  }
  std::string helper(const std::string& name) const { return (dir / "reapers" / name).string(); }
  std::string node_script(const std::string& package, const std::string& script) const {
    return "node " + (dir / "node" / package / script).string();
  }
};

ReaperChoice choice(const Preset& p) {
  ReaperChoice c = p.supervises
                       ? supervise_choice(p.id, p.command, ReaperChoice::Origin::preset, p.needs)
                       : exec_choice(p.id, p.command, ReaperChoice::Origin::preset, p.needs);
  c.technique = p.does + " — " + c.technique;
  c.requires_what = p.requires_what;
  c.min_grace = std::chrono::milliseconds(p.min_grace_ms);
  return c;
}

const Need kNode = debian("node");
const Need kPython = debian("python3");
const Need kPsutil = debian("/usr/lib/python3/dist-packages/psutil");
constexpr const char* kNothing = "nothing but the program";
constexpr const char* kUserNs =
    "a PID namespace: root, or unprivileged user namespaces (setuid bwrap otherwise)";

// Inits and sandboxes: the agent runs under them, a signal to them is forwarded or ends a
// namespace.
std::vector<Preset> inits() {
  return {
      {"tini",
       true,
       "tini -s --",
       "tini without -g: signals forwarded to the direct child only",
       kNothing,
       {debian("tini")}},
      {"tini-group",
       true,
       "tini -s -g --",
       "tini -g: signals forwarded to the child's group",
       kNothing,
       {debian("tini")}},
      {"dumb-init",
       true,
       "dumb-init --",
       "dumb-init (setsid mode): signals forwarded to the child's group, SIGTERM to it again on "
       "the child's exit",
       kNothing,
       {debian("dumb-init")}},
      {"dumb-init-child",
       true,
       "dumb-init -c --",
       "dumb-init -c (single child): signals forwarded to the direct child only",
       kNothing,
       {debian("dumb-init")}},
      {"catatonit",
       true,
       "catatonit --",
       "catatonit: signals forwarded to the direct child only",
       kNothing,
       {debian("catatonit")}},
      {"catatonit-group",
       true,
       "catatonit -g --",
       "catatonit -g: signals forwarded to the child's process group",
       kNothing,
       {debian("catatonit")}},
      {"bwrap",
       true,
       "bwrap --die-with-parent --unshare-pid --dev-bind / / --",
       "bubblewrap: the agent in a PID namespace under bwrap's own init, killed with its parent",
       kUserNs,
       {debian("bwrap")}},
      {"bwrap-as-pid-1",
       true,
       "bwrap --die-with-parent --unshare-pid --as-pid-1 --dev-bind / / --",
       "bubblewrap --as-pid-1: the agent itself is its PID namespace's init, killed with its "
       "parent",
       kUserNs,
       {debian("bwrap")}},
      {"unshare-kill-child",
       true,
       "unshare --fork --pid --kill-child --",
       "util-linux unshare: the agent as init of a PID namespace, SIGKILLed when unshare dies",
       "root (CAP_SYS_ADMIN) for a PID namespace",
       {debian("unshare")}},
  };
}

// Process managers and libraries an orchestrator runs its agent with, stopping it through them.
std::vector<Preset> managers(const Fixtures& f) {
  return {
      {"timeout-k",
       true,
       "sh " + f.helper("timeout-k.sh"),
       "coreutils timeout -k: SIGTERM to the child and its group, SIGKILL to both after the kill "
       "delay",
       kNothing,
       {debian("timeout")}},
      {"supervisord",
       true,
       "sh " + f.helper("supervisord.sh"),
       "supervisord, stopasgroup and killasgroup: SIGTERM to the program's group, stopwaitsecs, "
       "SIGKILL to the group",
       "supervisord installed; its stopwaitsecs counts whole seconds",
       {debian("supervisord")},
       2500},
      {"s6",
       true,
       "sh " + f.helper("s6-supervise.sh"),
       "s6-supervise: SIGTERM and SIGCONT to the service process, SIGKILL after timeout-kill",
       kNothing,
       {debian("s6-supervise")}},
      {"npm-run",
       true,
       "sh " + f.helper("npm-run.sh"),
       "npm run: a signal npm receives forwarded to its child, the script",
       "node and npm",
       {debian("npm")}},
      {"execa",
       true,
       f.node_script("execa", "supervise.mjs"),
       "execa 9: subprocess.kill() with forceKillAfterDelay, to the direct child only",
       "node 18.19 or later",
       {kNode, f.npm_package("execa")}},
      {"concurrently",
       true,
       f.node_script("concurrently", "supervise.js"),
       "concurrently 9: the signal it receives passed to each command's tree with tree-kill",
       "node 18 and procps's ps",
       {kNode, f.npm_package("concurrently")}},
      {"python-killpg",
       true,
       "python3 " + f.helper("popen_killpg.py"),
       "Popen(start_new_session=True), os.killpg SIGTERM, wait(timeout), os.killpg SIGKILL",
       kNothing,
       {kPython}},
      {"direct-child",
       true,
       "node " + f.helper("direct-child.js"),
       "baseline: the direct child only, SIGTERM then SIGKILL after the grace (child.kill(), "
       "Go's Process.Kill, node --watch)",
       kNothing,
       {kNode}},
  };
}

// Kill commands an orchestrator runs at kill time with the agent's ids.
std::vector<Preset> commands(const Fixtures& f) {
  const std::string tree_kill = f.node_script("tree-kill", "kill.js");
  return {
      {"tree-kill",
       false,
       tree_kill + " {pid} SIGTERM; sleep {grace_s}; " + tree_kill +
           " {pid} SIGKILL 2>/dev/null || true",
       "tree-kill: ps --ppid walk from the pid, SIGTERM, grace, the same with SIGKILL",
       "node and procps's ps",
       {kNode, f.npm_package("tree-kill")}},
      {"terminate",
       false,
       f.node_script("terminate", "kill.js") + " {pid}",
       "terminate: ps-tree (ps -A) lists the tree under the pid, SIGKILL to each, polled until "
       "gone",
       "node and a ps that takes -A -o",
       {kNode, f.npm_package("terminate")}},
      {"psutil",
       false,
       "python3 " + f.helper("psutil_tree.py") + " {pid} {grace_s}",
       "psutil's recipe: children(recursive=True), terminate(), wait_procs(), kill() the rest",
       "python3 with psutil; reads /proc",
       {kPython, kPsutil}},
      {"kill-group",
       false,
       "/bin/kill -TERM -- -{pgid}; sleep {grace_s}; /bin/kill -KILL -- -{pgid} 2>/dev/null || "
       "true",
       "kill -- -PGID: SIGTERM to the agent's group, grace, SIGKILL to it",
       kNothing,
       {}},
      {"session-kill",
       false,
       "sh " + f.helper("session-kill.sh") + " {sid} {grace_s}",
       "the equivalent of `pkill -s SID`, then `pkill -KILL -s SID` after the grace: every "
       "process of the agent's session, read from /proc, by pid",
       kNothing,
       {}},
      {"env-mark",
       false,
       "sh " + f.helper("env-mark.sh") + " {worktree} {grace_s}",
       "baseline: SIGTERM to every process whose environment carries the agent's mark, grace, "
       "SIGKILL (Jenkins' BUILD_ID)",
       "a readable /proc/<pid>/environ (the same user, or root)",
       {}},
  };
}

}  // namespace

std::vector<ReaperChoice> presets(const Layout& layout) {
  const Fixtures fixtures{layout.fixtures};
  std::vector<ReaperChoice> out;
  for (const auto& group : {inits(), managers(fixtures), commands(fixtures)}) {
    for (const Preset& p : group) out.push_back(choice(p));
  }
  return out;
}

}  // namespace reapcheck
