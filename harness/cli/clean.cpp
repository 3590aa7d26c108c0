// `reapcheck clean`: removes what runs left on the host, as every run does before its first case.
#include <fmt/format.h>

#include "harness/cli/commands.h"
#include "harness/engine/leftovers.h"

namespace reapcheck {

Command clean_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "clean",
      "Remove what runs left on the host and no live run holds: the scratch directories, cgroup "
      "areas, pids groups and tracing instances of runs that were killed, and the tracing "
      "instances kept for reuse under REAPCHECK_KEEP_TRACE=1 (CTest's matrix tests). Every run "
      "does the first part before its first case; only clean removes kept instances, which "
      "other runs on the host may share. CTest runs it after the matrix tests");
  cmd->footer("Example:\n  reapcheck clean");
  return {cmd, [] {
            const Leftovers removed = reclaim_leftovers(Reclaim::and_kept_traces);
            fmt::print("reapcheck: removed {}\n", removed.describe());
            return 0;
          }};
}

}  // namespace reapcheck
