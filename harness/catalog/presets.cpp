// Presets: well-known external reapers, each run as its users run it, one line each. Each needs
// an expectations file, scenarios/expectations/<id>.toml, like a built-in strategy.
#include "harness/catalog/catalog.h"
#include "harness/support/paths.h"

namespace reapcheck {

std::vector<ReaperChoice> presets() {
  using enum ReaperChoice::Origin;
  // tree-kill as node tools use it: SIGTERM to the tree under the agent, then SIGKILL after the
  // grace period to whatever tree-kill still finds.
  const std::string tree_kill =
      "node " + (fixtures_dir() / "node" / "tree-kill" / "kill.js").string();
  return {
      supervise_choice("tini", "tini -s --", preset, "tini"),
      supervise_choice("tini-group", "tini -s -g --", preset, "tini"),
      supervise_choice("dumb-init", "dumb-init --", preset, "dumb-init"),
      supervise_choice("catatonit", "catatonit --", preset, "catatonit"),
      supervise_choice("bwrap", "bwrap --die-with-parent --unshare-pid --dev-bind / / --", preset,
                       "bwrap"),
      exec_choice("tree-kill",
                  tree_kill + " {pid} SIGTERM; sleep {grace_s}; " + tree_kill +
                      " {pid} SIGKILL 2>/dev/null || true",
                  preset, "node"),
      exec_choice("kill-group",
                  "/bin/kill -TERM -- -{pgid}; sleep {grace_s}; /bin/kill -KILL -- -{pgid} "
                  "2>/dev/null || true",
                  preset),
  };
}

}  // namespace reapcheck
