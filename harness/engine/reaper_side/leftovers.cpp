#include "harness/engine/reaper_side/leftovers.h"

#include <fmt/format.h>

#include "harness/sandbox/cgroup_area.h"
#include "harness/sandbox/kernel_signal_trace.h"
#include "harness/sandbox/memory_bound.h"
#include "harness/sandbox/pids_group.h"
#include "harness/sandbox/sandbox.h"
#include "reaper/os/proc_table.h"

namespace reapcheck {

std::string Leftovers::describe() const {
  return fmt::format(
      "{} scratch director{}, {} cgroup area{}, {} pids group{}, {} memory group{}, {} tracing "
      "instance{}",
      scratch, scratch == 1 ? "y" : "ies", cgroups, cgroups == 1 ? "" : "s", pids,
      pids == 1 ? "" : "s", memory, memory == 1 ? "" : "s", traces, traces == 1 ? "" : "s");
}

Leftovers reclaim_leftovers(Reclaim what, const std::filesystem::path& temp) {
  Leftovers removed;
  removed.scratch = ScratchDir::reclaim_abandoned(temp);
  removed.cgroups = CgroupArea::reclaim_abandoned();
  removed.pids = PidsGroup::reclaim_abandoned();
  removed.memory = MemoryGroup::reclaim_abandoned();
  removed.traces = KernelSignalTrace::reclaim_abandoned(what == Reclaim::and_kept_traces);
  return removed;
}

std::vector<HeldItem> list_leftovers(const std::filesystem::path& temp) {
  std::vector<HeldItem> out;
  const auto add = [&](std::string_view kind, const std::vector<HostItem>& items) {
    for (const HostItem& item : items) out.push_back({std::string(kind), item});
  };
  add("scratch", ScratchDir::list(temp));
  add("cgroup", CgroupArea::list());
  add("pids", PidsGroup::list());
  add("memory", MemoryGroup::list());
  add("tracing", KernelSignalTrace::list());
  return out;
}

bool held_by_run(const HeldItem& held, pid_t run) {
  constexpr int kDeepest = 64;  // a run's workers are its children; a bound on a corrupt chain
  pid_t p = held.item.run;
  for (int depth = 0; depth < kDeepest && p > 1; ++depth) {
    if (p == run) return true;
    const auto info = reaper::ProcTable::read_one(p, reaper::Detail::stat);
    if (!info) return false;
    p = info->ppid;
  }
  return false;
}

std::string held_line(const HeldItem& held) {
  const HostItem& item = held.item;
  std::string_view state = "dead";
  if (item.state == HostItem::State::alive) state = "alive";
  if (item.state == HostItem::State::free) state = "free";
  return fmt::format("{} {} {} {}", held.kind, item.run > 0 ? std::to_string(item.run) : "-", state,
                     item.path);
}

}  // namespace reapcheck
