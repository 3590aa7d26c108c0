#include "harness/engine/audit.h"

#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "reaper/os/pidfd.h"
#include "reaper/os/read_file.h"

namespace reapcheck {
namespace {

using Clock = std::chrono::steady_clock;

constexpr unsigned long kPfExiting = 0x4;  // PF_EXITING in a task's flags

// One thread of the process: a pending SIGKILL, or PF_EXITING in the flags of its stat (the
// ninth field, the sixth after the parenthesised comm).
bool thread_dying(const std::string& task) {
  const std::string status = reaper::read_file(task + "/status");
  for (const char* field : {"\nSigPnd:", "\nShdPnd:"}) {
    const size_t at = status.find(field);
    if (at != std::string::npos &&
        (std::strtoull(status.c_str() + at + std::strlen(field), nullptr, 16) &
         (1ULL << (SIGKILL - 1))) != 0) {
      return true;
    }
  }
  const std::string stat = reaper::read_file(task + "/stat");
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream fields(stat.substr(close + 1));
  std::string field;
  for (int i = 0; i < 7 && fields >> field; ++i) {
  }
  return (std::strtoul(field.c_str(), nullptr, 10) & kPfExiting) != 0;
}

}  // namespace

bool dying(pid_t pid) {
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator(tasks, ec)) {
    if (thread_dying(task.path().string())) return true;
  }
  return false;
}

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
      if (outside.count(p.pid) != 0 || known.count(p.pid) != 0) continue;
      if (sessions != nullptr && sessions->count(p.sid) == 0) continue;
      // A zombie is dead once its pidfd says so: a leader in state Z whose other threads still
      // run is alive.
      if (auto fd = reaper::pidfd_open(p.pid); fd && !reaper::pidfd_exited(fd->get())) {
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
      // Alive until its pidfd reports the exit of its whole thread group, whatever /proc shows
      // for the leader.
      if (m.watch_slot < 0 || watch.dead(m.watch_slot) || reaper::pidfd_exited(m.pidfd.get())) {
        continue;
      }
      const reaper::ProcInfo* p = table.find(m.pid);
      result.survivors.push_back(p != nullptr ? record_of(*p, m.role)
                                              : ProcessRecord{m.pid, 0, 0, 0, "?", m.role, {}});
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
