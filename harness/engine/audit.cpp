#include "harness/engine/audit.h"

#include <algorithm>

#include "reaper/os/pidfd.h"

namespace reapcheck {
namespace {

using Clock = std::chrono::steady_clock;

bool is_dead_state(char state) {
  return state == 'Z' || state == 'X';
}

}  // namespace

ProcessRecord record_of(const reaper::ProcInfo& info, std::string role) {
  return ProcessRecord{info.pid,        info.ppid, info.pgid, info.sid, std::string(1, info.state),
                       std::move(role), info.argv};
}

void watch_members(std::vector<Member>& members, DeathWatch& watch) {
  for (Member& m : members) {
    if (m.pidfd && m.watch_slot < 0) m.watch_slot = watch.add(m.pidfd.get());
  }
}

AuditResult audit(std::vector<Member>& members, DeathWatch& watch, const std::set<pid_t>& outside,
                  Clock::time_point since, std::chrono::milliseconds settle,
                  const std::set<pid_t>* sessions) {
  const auto deadline = Clock::now() + settle;
  std::set<pid_t> known;  // every pid already tracked, announced or found by a scan
  for (const Member& m : members) known.insert(m.pid);
  std::vector<Member> unannounced;
  reaper::ProcTable table;

  for (;;) {
    watch.wait(deadline);
    // Anything else alive in the sandbox came from the tree too. Look once every member we
    // know of has died, or at the deadline.
    table = reaper::ProcTable::read("/proc", reaper::Detail::full);
    bool found_new = false;
    for (const auto& p : table.all()) {
      if (is_dead_state(p.state) || outside.count(p.pid) != 0) continue;
      if (sessions != nullptr && sessions->count(p.sid) == 0) continue;
      if (known.count(p.pid) != 0) continue;
      if (auto fd = reaper::pidfd_open(p.pid)) {
        const int slot = watch.add(fd->get());
        unannounced.push_back(Member{p.pid, "unannounced", std::move(*fd), slot});
        known.insert(p.pid);
        found_new = true;
      }
    }
    if (!found_new || Clock::now() >= deadline) break;
  }

  AuditResult result;
  for (auto* group : {&members, &unannounced}) {
    for (const Member& m : *group) {
      if (m.watch_slot < 0 || watch.dead(m.watch_slot)) continue;
      const reaper::ProcInfo* p = table.find(m.pid);
      if (p == nullptr || is_dead_state(p->state)) continue;
      result.survivors.push_back(record_of(*p, m.role));
    }
  }
  if (result.survivors.empty()) {
    result.all_dead_ms =
        std::chrono::duration<double, std::milli>(std::max(since, watch.last_death()) - since)
            .count();
  }
  return result;
}

}  // namespace reapcheck
