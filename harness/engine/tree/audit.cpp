#include "harness/engine/tree/audit.h"

#include <algorithm>
#include <optional>

#include "harness/engine/census/activity.h"
#include "harness/engine/tree/observed_tree.h"
#include "harness/model/text.h"
#include "reaper/os/pidfd.h"

namespace reapcheck {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

ProcessRecord record_of(const reaper::ProcInfo& info, std::string role) {
  return ProcessRecord{
      info.pid,        info.ppid,           info.pgid, info.sid, std::string(1, info.state),
      std::move(role), printable(info.argv)};
}

void watch_members(std::vector<Member>& members, DeathWatch& watch) {
  for (Member& m : members) {
    if (m.pidfd && m.watch_slot < 0) m.watch_slot = watch.add(m.pidfd.get());
  }
}

namespace {

// What a scan of the sandbox found that the audit did not know yet.
struct Found {
  std::vector<Member>* tree;       // processes of the tree no one announced
  std::vector<Member>* leftovers;  // processes the reaper's side started (after it returned too)
};

// Adds every live process not yet known (not announced, not outside) to `found`: the tree's, or,
// when the kernel's fork events show the reaper's side started it, the reaper's own — however it
// detached, it is reported as left running, never as a survivor of the tree. A process whose
// fork event has not been read yet waits for it first: a helper that forks as the audit looks
// would otherwise be taken for the tree.
bool find_unannounced(const AuditScope& scope, const Census& census, std::set<pid_t>& known,
                      DeathWatch& watch, const Found& found) {
  std::vector<reaper::ProcInfo> fresh;
  const reaper::ProcTable table = scope.processes->table(reaper::Detail::stat);
  for (const auto& p : table.all()) {
    if (scope.outside.count(p.pid) != 0 || known.count(p.pid) != 0) continue;
    if (scope.sessions != nullptr && scope.sessions->count(p.sid) == 0) continue;
    fresh.push_back(p);
  }
  const bool unborn = std::any_of(fresh.begin(), fresh.end(), [&](const reaper::ProcInfo& p) {
    return !census.born_known(p.pid);
  });
  if (unborn && scope.learn_births) scope.learn_births();
  bool grew = false;
  for (const auto& p : fresh) {
    // A zombie is dead once its pidfd says so: a leader in state Z whose other threads still
    // run is alive.
    auto fd = scope.processes->hold(p.pid);
    if (!fd || reaper::pidfd_exited(fd->get())) continue;
    known.insert(p.pid);
    if (census.born_of_reaper(p.pid)) {
      found.leftovers->push_back(Member{p.pid, role_of(p), std::move(*fd), -1});
      continue;
    }
    const int slot = watch.add(fd->get());
    // Named from what it runs, as an observed tree's members are (its comm: the scan reads stat).
    found.tree->push_back(Member{p.pid, role_of(p), std::move(*fd), slot});
    grew = true;
  }
  return grew;
}

bool alive(const Member& m) {
  return m.pidfd && !reaper::pidfd_exited(m.pidfd.get());
}

// The live members that are dying (`dying_wanted`), or those alive and not dying. A member
// that exits while it is read counts as dying: its pidfd has fired, or is about to.
std::set<pid_t> alive_where(const std::vector<const std::vector<Member>*>& groups,
                            bool dying_wanted, const AuditScope& scope) {
  std::set<pid_t> out;
  for (const auto* group : groups) {
    for (const Member& m : *group) {
      if (alive(m) && scope.processes->lives_on(m.pid, m.pidfd.get()) != dying_wanted) {
        out.insert(m.pid);
      }
    }
  }
  return out;
}

// The live members that are dying (a fatal signal pending, exiting) or busy (running, or a
// handler still to run: activity.h) now: at the settle bound these are waited for, since whether
// they end in the next moment is the machine's load, not the reaper's doing (a server shutting
// down after the reaper's SIGTERM, npm exiting as its script's server dies). The rest, idle
// (waiting, if on a timer: a watcher's poll would hold every leak 10 s), outlived the reaper.
std::set<pid_t> under_way(const std::vector<const std::vector<Member>*>& groups,
                          const Census& census, const AuditScope& scope,
                          Clock::time_point horizon) {
  std::set<pid_t> out;
  for (const auto* group : groups) {
    for (const Member& m : *group) {
      if (!alive(m)) continue;
      if (!scope.processes->lives_on(m.pid, m.pidfd.get()) ||
          scope.processes->activity(m.pid, m.pidfd.get(), census, horizon) == Activity::busy) {
        out.insert(m.pid);
      }
    }
  }
  return out;
}

// The parents of the zombies in the sandbox now: a shell of the reaper's in wait4() for a child
// that has just exited is about to wake and go on to what it waited to do, though it still reads
// as waiting for good.
std::set<pid_t> reaping_now(const Processes& processes) {
  std::set<pid_t> out;
  const reaper::ProcTable table = processes.table(reaper::Detail::stat);
  for (const auto& p : table.all()) {
    if (p.state == 'Z') out.insert(p.ppid);
  }
  return out;
}

// Nothing more can happen to the tree: all of it dead; or every live process of it idle and
// not dying, and none of the reaper's own left running (which might yet kill it).
// A wait that cannot end before `horizon` (where the watch stops) is, to it, one with no end.
// The reaper's own processes left running (at its return, or found since): each pid with its
// pidfd.
std::vector<std::pair<pid_t, int>> reaper_processes(const AuditScope& scope,
                                                    const std::vector<Member>& leftovers) {
  std::vector<std::pair<pid_t, int>> reapers = scope.reaper_left_running;
  for (const Member& m : leftovers) reapers.emplace_back(m.pid, m.pidfd.get());
  return reapers;
}

// Every process the reaper left running has exited or gone idle for good (as the sibling agent's
// supervisor, waiting on its agent, does): nothing of the reaper's side can send another signal.
bool reaper_done(const AuditScope& scope, const std::vector<Member>& leftovers,
                 const Census& census, Clock::time_point horizon) {
  const std::vector<std::pair<pid_t, int>> reapers = reaper_processes(scope, leftovers);
  const std::set<pid_t> reaping =
      reapers.empty() ? std::set<pid_t>{} : reaping_now(*scope.processes);
  return std::all_of(reapers.begin(), reapers.end(), [&](const auto& p) {
    return reaper::pidfd_exited(p.second) ||
           (reaping.count(p.first) == 0 &&
            scope.processes->activity(p.first, p.second, census, horizon) == Activity::settled);
  });
}

bool certain(const std::vector<const std::vector<Member>*>& groups, const Census& census,
             const AuditScope& scope, const std::vector<Member>& leftovers,
             Clock::time_point horizon) {
  // The reaper's processes first: once they have all exited or gone idle for good, every signal
  // they sent is queued already, so the tree's state read after this shows it. Read the other
  // way round, a helper could signal an idle member and exit between the two reads. A tree all
  // dead is not enough: a helper the reaper left behind may yet signal a freed id, or the one
  // a decoy took, so one on a timer is watched up to the settle bound (not past it: a supervisor
  // polling every second would hold every case).
  if (!reaper_done(scope, leftovers, census, horizon)) return false;
  for (const auto* group : groups) {
    for (const Member& m : *group) {
      if (!alive(m)) continue;
      if (scope.processes->activity(m.pid, m.pidfd.get(), census, horizon) != Activity::settled) {
        return false;
      }
    }
  }
  return true;
}

// The processes certain() reads: the tree's live members and the reaper's processes left running.
std::vector<pid_t> read_by_certain(const std::vector<const std::vector<Member>*>& groups,
                                   const AuditScope& scope, const std::vector<Member>& leftovers) {
  std::vector<pid_t> out;
  for (const auto* group : groups) {
    for (const Member& m : *group) {
      if (alive(m)) out.push_back(m.pid);
    }
  }
  for (const auto& [pid, fd] : reaper_processes(scope, leftovers)) out.push_back(pid);
  return out;
}

// certain() reads one process after another: what it read held at one instant only if no
// thread ran between a look at the threads just after it held and another just after it held
// again (stillness.h). Otherwise npm, read as waiting for good, may have been woken meanwhile by
// a thread of its own or a process read after it, and exit a moment after the audit called it a
// survivor.
enum class Look {
  first,  // the first look since certain() last failed: nothing to compare it with
  still,  // no thread ran since the look before
  moved,  // one did
};

class StillLooks {
 public:
  void clear() { last_.reset(); }
  // certain() has just held: looks at the threads it read.
  Look after_certain(const std::vector<const std::vector<Member>*>& groups, const AuditScope& scope,
                     const std::vector<Member>& leftovers) {
    ThreadRuns now = scope.processes->thread_runs(read_by_certain(groups, scope, leftovers));
    const Look look = !last_ ? Look::first : none_ran(*last_, now) ? Look::still : Look::moved;
    last_ = std::move(now);
    return look;
  }

 private:
  std::optional<ThreadRuns> last_;
};

// Who outlived `settle`, decided as it passes, of those then idle for good: what dies while the
// dying and the busy (`pending`) finish changes nothing. A busy one that goes idle instead
// survives too.
std::set<pid_t> outlived_bound(const std::vector<const std::vector<Member>*>& groups,
                               const std::set<pid_t>& pending, const AuditScope& scope) {
  std::set<pid_t> out;
  for (pid_t pid : alive_where(groups, false, scope)) {
    if (pending.count(pid) == 0) out.insert(pid);
  }
  return out;
}

// No process of the tree died since `alive_before` was counted. A death while the tree was read
// may wake what was read idle before it (a parent whose pipe or pidfd the dead child held, npm
// waiting on its script): the tree was then not certain, whatever each read said.
bool none_died(DeathWatch& watch, int alive_before) {
  watch.wait(Clock::now());
  return watch.alive() == alive_before;
}

// The members alive now, or alive, idle and not dying when `settle` passed (`outlived`, as
// `at_bound` showed them), as records.
std::vector<ProcessRecord> survivors_of(const std::vector<const std::vector<Member>*>& groups,
                                        const std::set<pid_t>& outlived,
                                        const std::optional<reaper::ProcTable>& at_bound,
                                        const Processes& processes) {
  std::vector<ProcessRecord> out;
  const reaper::ProcTable table = processes.table(reaper::Detail::full);
  for (const auto* group : groups) {
    for (const Member& m : *group) {
      // Alive until its pidfd reports the exit of its whole thread group, whatever /proc shows
      // for the leader.
      if (m.watch_slot < 0 || (!alive(m) && outlived.count(m.pid) == 0)) continue;
      const reaper::ProcInfo* p = outlived.count(m.pid) != 0 ? at_bound->find(m.pid) : nullptr;
      if (p == nullptr) p = table.find(m.pid);
      out.push_back(p != nullptr ? record_of(*p, m.role)
                                 : ProcessRecord{m.pid, 0, 0, 0, "?", m.role, {}});
    }
  }
  return out;
}

}  // namespace

AuditResult audit(std::vector<Member>& members, DeathWatch& watch, const Census& census,
                  const AuditScope& scope) {
  const auto start = Clock::now();
  const auto deadline = start + scope.settle;
  // A member dying when `settle` passes is the kernel's to finish, one busy may be about to end:
  // each is waited for longer, or a loaded machine would make a survivor of a 1,000-process
  // namespace teardown or a graceful shutdown.
  const auto dying_deadline = deadline + scope.dying_bound;
  std::set<pid_t> known;  // every pid already tracked, announced or found by a scan
  for (const Member& m : members) known.insert(m.pid);
  std::vector<Member> unannounced;
  std::vector<Member> leftovers;  // the reaper's, found by a scan
  const std::vector<const std::vector<Member>*> groups = {&members, &unannounced};
  std::optional<reaper::ProcTable> at_bound;  // the sandbox when `settle` passed, if it did
  std::set<pid_t> outlived;  // members then alive, idle, not dying: survivors, whatever comes after
  bool result_bound_hit = false;  // the wait for the dying and busy ended at its bound
  // Each look that finds something still under way waits for a death a little longer, up to
  // 16 ms; a death wakes it at once.
  auto backoff = std::chrono::milliseconds(1);
  StillLooks looks;
  for (;;) {
    watch.wait(Clock::now());  // the deaths so far
    const int alive_before = watch.alive();
    const bool grew = find_unannounced(scope, census, known, watch, {&unannounced, &leftovers});
    if (!grew && certain(groups, census, scope, leftovers, deadline) &&
        none_died(watch, alive_before)) {
      const Look look = looks.after_certain(groups, scope, leftovers);
      if (look == Look::still) break;
      if (look == Look::first) continue;  // read it all again at once, before the next look
    } else {
      looks.clear();
    }
    const auto now = Clock::now();
    const bool past_bound = now >= deadline;
    const std::set<pid_t> pending =
        past_bound ? under_way(groups, census, scope, dying_deadline) : std::set<pid_t>{};
    if (past_bound && (now >= dying_deadline || pending.empty())) {
      if (now >= dying_deadline) result_bound_hit = !pending.empty();
      break;
    }
    if (past_bound && !at_bound) {
      at_bound = scope.processes->table(reaper::Detail::full);
      outlived = outlived_bound(groups, pending, scope);
    }
    watch.wait(std::min(now < deadline ? deadline : dying_deadline, now + backoff));
    backoff = std::min(std::chrono::milliseconds(16), backoff * 2);
  }

  AuditResult result;
  result.busy_at_bound = result_bound_hit;
  result.watched_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  result.survivors = survivors_of(groups, outlived, at_bound, *scope.processes);
  if (result.survivors.empty()) {
    watch.wait(Clock::now());
    result.all_dead_ms = std::chrono::duration<double, std::milli>(
                             std::max(scope.since, watch.last_death()) - scope.since)
                             .count();
  }
  return result;
}

}  // namespace reapcheck
