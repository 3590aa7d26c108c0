// The tree's last state before the kill: quiet (tree.h).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "harness/engine/stages/tree.h"
#include "harness/engine/tree/observed_tree.h"
#include "reaper/os/backoff.h"
#include "reaper/os/proc_table.h"

namespace reapcheck {
namespace {

using Clock = CaseContext::Clock;

// The namespace's processes but this one, and those of them running now.
struct Look {
  std::vector<std::string> state;  // tree_state(): pid, start time, argv of each; the last pid
  std::vector<std::string> running;
};

Look look(const Processes& processes) {
  const reaper::ProcTable table = processes.table(reaper::Detail::full);
  std::vector<const reaper::ProcInfo*> others;
  Look out;
  for (const auto& p : table.all()) {
    if (p.pid == ::getpid()) continue;
    others.push_back(&p);
    if (p.state == 'R') out.running.push_back(fmt::format("{} (pid {})", role_of(p), p.pid));
  }
  out.state = tree_state(others, processes.last_pid());
  return out;
}

}  // namespace

void await_quiet(const CaseContext& ctx) {
  // On this machine the last pid is the host's, which never stops moving.
  if (ctx.options.on_host) return;
  reaper::Backoff backoff;
  Look last = look(*ctx.processes);
  for (;;) {
    backoff.wait(ctx.setup_deadline);
    Look now = look(*ctx.processes);
    const bool still = now.state == last.state;
    // A fixture's processes block once built; a project's own may run on (timers, a watcher's
    // polling), its quiet period already behind it (observed_tree.h).
    if (still && (now.running.empty() || ctx.observed())) return;
    if (Clock::now() >= ctx.setup_deadline) {
      // A process that keeps running but forks and execs nothing is no fork in flight.
      if (still) return;
      setup_failed(fmt::format(
          "the tree never went quiet before the kill: it kept forking or exec'ing ({}){}",
          now.running.empty() ? std::string("nothing running when looked at")
                              : fmt::format("running: {}", fmt::join(now.running, ", ")),
          ctx.log_tail()));
    }
    last = std::move(now);
  }
}

}  // namespace reapcheck
