#include "harness/engine/bystanders/race.h"

#include <poll.h>
#include <signal.h>

#include <algorithm>
#include <string>

#include "harness/model/judge.h"
#include "reaper/os/backoff.h"
#include "reaper/os/deadline.h"
#include "reaper/os/pidfd.h"

namespace reapcheck {
namespace {

using Clock = std::chrono::steady_clock;

// Each trigger member exits in turn; returns false when the reaper replied while one was alive
// and not dying (or the deadline passed). One already dying when the reply comes (SIGKILLed, or
// in a namespace whose init is exiting) is waited for: whether its exit or the reply came first
// would be chance.
bool await_triggers(const Race& race, const KillWatch& with, Clock::time_point deadline) {
  const int reply_fd = with.host.reply_fd();
  for (const Race::Trigger& trigger : race.triggers) {
    pollfd fds[2] = {{trigger.pidfd, POLLIN, 0}, {reply_fd, POLLIN, 0}};
    int rc = 0;
    do {
      rc = ::poll(fds, 2, static_cast<int>(reaper::time_left(deadline).count()));
    } while (rc < 0 && errno == EINTR);
    if (rc <= 0) return false;
    if ((fds[0].revents & POLLIN) != 0) continue;
    // The reaper is done: a member that lives on ends the race; a dying one is waited for.
    if (with.processes.lives_on(trigger.pid, trigger.pidfd)) return false;
    if (!reaper::pidfd_wait_exit(trigger.pidfd, reaper::time_left(deadline))) return false;
  }
  return true;
}

// Every process that holds `id` (as its pid, group or session) is a zombie, dying or gone: the
// id is about to be free.
bool being_freed(const Processes& processes, pid_t id) {
  const reaper::ProcTable table = processes.table(reaper::Detail::stat);
  return std::all_of(table.all().begin(), table.all().end(), [&](const reaper::ProcInfo& p) {
    const bool holds = p.pid == id || p.pgid == id || p.sid == id;
    if (!holds || p.state == 'Z' || p.state == 'X') return true;
    const auto fd = processes.hold(p.pid);
    return !fd || !processes.lives_on(p.pid, fd->get());
  });
}

}  // namespace

std::optional<Race> plan_race(const Scenario& scenario, const std::vector<Member>& members,
                              const reaper::ProcTable& before) {
  const BystanderSpec* spec = scenario.race();
  if (spec == nullptr) return std::nullopt;
  Race race{*spec, {}, {}, {}, {}};
  const auto held = scenario.held_roles();
  for (const Member& m : members) {
    if (std::find(held.begin(), held.end(), m.role) != held.end()) {
      race.held.push_back(m.pidfd.get());
      race.held_pids.push_back(m.pid);
    }
  }
  race.record.kind = spec->kind;
  race.record.target = spec->target;
  auto target = std::find_if(members.begin(), members.end(),
                             [&](const Member& m) { return m.role == spec->target; });
  const reaper::ProcInfo* info = before.find(target->pid);
  if (spec->kind == BystanderKind::recycled_pid) {
    race.record.target_id = target->pid;
    race.triggers.push_back({target->pidfd.get(), target->pid});
  } else {
    race.record.target_id = info != nullptr ? info->pgid : target->pid;
    for (const Member& m : members) {
      const reaper::ProcInfo* p = before.find(m.pid);
      if (p != nullptr && p->pgid == race.record.target_id) {
        race.triggers.push_back({m.pidfd.get(), m.pid});
      }
    }
  }
  return race;
}

Orchestrator::Reply await_kill(const KillWatch& with, std::optional<Race>& race,
                               Clock::time_point since, Clock::time_point deadline) {
  Orchestrator& host = with.host;
  if (race) {
    RaceRecord& rec = race->record;
    const bool pid = rec.kind == BystanderKind::recycled_pid;
    const std::string what = pid ? "pid" : "process group id";
    if (!await_triggers(*race, with, deadline)) {
      rec.detail = rec.target + " (" + what + " " + std::to_string(rec.target_id) + ") had not " +
                   (pid ? "exited" : "emptied") + " when the reaper reported done";
    } else {
      // The id is free once the last exit has been reaped (by the member's parent, the reaper
      // host's runtime, or this init); until then clone3 says EEXIST. Each look that finds it
      // taken waits a little longer, on the reaper's reply, which ends the race. (The signal
      // ledger holds the reaper's calls by number meanwhile, so the wait changes no outcome.)
      //
      // The reaper may report done at the very moment it frees the id: a supervisor is reaped,
      // and so frees its own group's id, just before its host replies. Whether the decoy or the
      // reply came first would then be chance, so once the reaper is done the decoy is still
      // placed if what holds the id is only dying or awaiting its reaping; anything of the
      // reaper's side still running then meets it.
      reaper::Backoff backoff;
      for (;;) {
        const bool done = reaper::wait_readable(host.reply_fd(), std::chrono::milliseconds(0));
        if (with.bystanders.try_place_decoy(rec.target_id, std::string(to_string(rec.kind)))) {
          rec.decoy_pid = rec.target_id;
          rec.opened = true;
          rec.placed_ms = std::chrono::duration<double, std::milli>(Clock::now() - since).count();
          rec.detail = "decoy placed on " + what + " " + std::to_string(rec.target_id) +
                       (done ? " as the reaper reported done, its last holder just gone"
                             : " while the reaper was still at work");
          break;
        }
        if (done && !being_freed(with.processes, rec.target_id)) {
          rec.detail = "the " + what + " " + std::to_string(rec.target_id) +
                       " was still taken when the reaper reported done";
          break;
        }
        if (Clock::now() >= deadline) {
          rec.detail = "the " + what + " was never freed before the deadline";
          break;
        }
        backoff.wait(deadline, done ? -1 : host.reply_fd());
      }
    }
    for (int fd : race->held) with.processes.signal(fd, SIGUSR1);
    if (with.ledger != nullptr) with.ledger->race_staged(race->held_pids);
  }
  with.deaths.wait(deadline, host.reply_fd());
  return host.wait_killed(deadline);
}

CaseObservation retry_unopened_race(const std::function<CaseObservation()>& attempt,
                                    int max_attempts) {
  for (int n = 1;; ++n) {
    CaseObservation result = attempt();
    if (!result.race) return result;
    result.race->attempts = n;
    if (result.race->opened || judge(result).verdict != Verdict::skipped || n >= max_attempts) {
      return result;
    }
  }
}

}  // namespace reapcheck
