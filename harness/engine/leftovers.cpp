#include "harness/engine/leftovers.h"

#include <fmt/format.h>

#include "harness/sandbox/cgroup_area.h"
#include "harness/sandbox/kernel_signal_trace.h"
#include "harness/sandbox/pids_group.h"
#include "harness/sandbox/sandbox.h"

namespace reapcheck {

std::string Leftovers::describe() const {
  return fmt::format(
      "{} scratch director{}, {} cgroup area{}, {} pids group{}, {} tracing instance{}", scratch,
      scratch == 1 ? "y" : "ies", cgroups, cgroups == 1 ? "" : "s", pids, pids == 1 ? "" : "s",
      traces, traces == 1 ? "" : "s");
}

Leftovers reclaim_leftovers(Reclaim what) {
  Leftovers removed;
  removed.scratch = ScratchDir::reclaim_abandoned();
  removed.cgroups = CgroupArea::reclaim_abandoned();
  removed.pids = PidsGroup::reclaim_abandoned();
  removed.traces = KernelSignalTrace::reclaim_abandoned(what == Reclaim::and_kept_traces);
  return removed;
}

}  // namespace reapcheck
