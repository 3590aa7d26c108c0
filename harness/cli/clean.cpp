// `reapcheck clean`: removes what runs left on the host, as every run does before its first case;
// with --list, shows what runs hold there and leaves it.
#include <fmt/format.h>

#include <limits>
#include <memory>

#include "harness/cli/commands.h"
#include "harness/engine/reaper_side/leftovers.h"

namespace reapcheck {
namespace {

struct CleanArgs {
  bool list = false;
  pid_t run = 0;       // --run PID: only that run's
  size_t most = 1000;  // --max N: lines listed at most
};

// One line per item, the run's own only with --run; past --max, how many more on stderr.
int list(const CleanArgs& args, const std::filesystem::path& temp) {
  size_t listed = 0;
  size_t more = 0;
  for (const HeldItem& held : list_leftovers(temp)) {
    if (args.run != 0 && !held_by_run(held, args.run)) continue;
    if (listed == args.most) {
      ++more;
      continue;
    }
    fmt::print("{}\n", held_line(held));
    ++listed;
  }
  if (more > 0) fmt::print(stderr, "reapcheck: {} more not listed (--max {})\n", more, args.most);
  return 0;
}

}  // namespace

Command clean_command(CLI::App& app, const GlobalArgs& global) {
  auto args = std::make_shared<CleanArgs>();
  auto* cmd = app.add_subcommand(
      "clean",
      "Remove what runs left on the host and no live run holds: the scratch directories, cgroup "
      "areas, pids and memory groups and tracing instances of runs that were killed, and the "
      "tracing instances kept for reuse by runs with --keep-trace (CTest's matrix tests). Every "
      "run does the first part before its first case; only clean removes kept instances, which "
      "other runs on the host may share. CTest runs it after the matrix tests");
  cmd->add_flag("--list", args->list,
                "Remove nothing; list what runs hold, one per line: KIND RUN-PID STATE PATH. "
                "KIND: scratch (in TMPDIR), cgroup (an area in this shell's cgroup v2 group), "
                "pids (a cgroup v1 pids group), memory (a case's cgroup v1 memory group), "
                "tracing (tracefs:instances/NAME, as root). "
                "STATE: alive (its run holds it), dead (left: the next run removes it), free (a "
                "kept tracing instance no process uses; RUN-PID -)");
  cmd->add_option("--run", args->run,
                  "With --list: only what the run with this pid holds, its case workers' "
                  "included, alive or left behind (a kept tracing instance one of them holds "
                  "gives that worker's pid, while it lives)")
      ->type_name("PID")
      ->check(CLI::Range(1, std::numeric_limits<int>::max()));
  cmd->add_option("--max", args->most, "With --list: list at most N lines (default 1000)")
      ->type_name("N")
      ->check(CLI::Range(size_t{1}, std::numeric_limits<size_t>::max()));
  cmd->footer(
      "Examples:\n  reapcheck clean\n  reapcheck clean --list\n  reapcheck clean --list --run "
      "4242\n    scratch 4242 alive /tmp/reapcheck-4242-Xy12Ab\n    cgroup 4242 alive "
      "/sys/fs/cgroup/user.slice/reapcheck-run-4242-Pq34Rs\n    tracing 4242 alive "
      "tracefs:instances/reapcheck-4242");
  return {cmd, [args, &global] {
            if (args->list) return list(*args, global.layout.temp);
            if (args->run != 0) throw UsageError("--run PID lists one run's: it needs --list");
            const Leftovers removed =
                reclaim_leftovers(Reclaim::and_kept_traces, global.layout.temp);
            fmt::print("reapcheck: removed {}\n", removed.describe());
            return 0;
          }};
}

}  // namespace reapcheck
