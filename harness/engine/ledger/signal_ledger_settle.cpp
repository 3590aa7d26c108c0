// What the signal ledger waits for before it answers a call of the reaper's by number: the
// processes earlier calls reached, until what those calls set in motion is over (settle_step),
// or, when nothing under way can change what the call meets, not at all (unaffected).
#include <signal.h>

#include <algorithm>

#include "harness/engine/census/activity.h"
#include "harness/engine/ledger/signal_call.h"
#include "harness/engine/ledger/signal_ledger.h"
#include "reaper/os/pidfd.h"
#include "reaper/os/proc_table.h"

namespace reapcheck {
namespace {

// How many candidates unaffected() lets pile up before they are looked at: each holds a pidfd.
constexpr size_t kLazyCandidates = 256;

}  // namespace

// A process of the reaper's side whose own call is held here reaps nothing until it is answered
// (timeout(1) reaps its child from its main loop, not from a handler): waiting for it to reap
// would wait for ourselves. The reaper host reaps from its SIGCHLD handler, which runs while it
// waits, and is never held in this sense.
bool SignalLedger::held(pid_t pid) const {
  return std::any_of(
             deferred_.begin(), deferred_.end(),
             [&](const Deferred& d) { return static_cast<pid_t>(d.taken.call.pid) == pid; }) ||
         std::any_of(after_return_.begin(), after_return_.end(),
                     [&](const Taken& t) { return static_cast<pid_t>(t.call.pid) == pid; });
}

bool SignalLedger::add_candidate(pid_t pid, int sig) {
  // One candidate a process: a reaper that signals each of 5,000 members three times (SIGTERM,
  // SIGCONT, SIGKILL) would otherwise hold 15,000 pidfds here, and the case ran out of fds.
  const auto known = std::find_if(
      candidates_.begin(), candidates_.end(),
      [pid](const Candidate& c) { return c.pid == pid && !reaper::pidfd_exited(c.pidfd.get()); });
  if (known != candidates_.end()) {
    // SIGKILL is for good; SIGCONT ends a stop; any other signal leaves a stop to come in place.
    if (known->course == Course::dying) return false;
    if (sig == SIGKILL) {
      const auto b = bearing_of(pid, sig);
      known->course = b ? b->course : Course::open;
    } else if (sig == SIGCONT || known->course != Course::stopping) {
      known->course = Course::open;
    }
    return false;
  }
  auto fd = reaper::pidfd_open(pid);
  const auto b = bearing_of(pid, sig);
  if (!fd || !b) return false;
  candidates_.push_back({pid, b->sid, std::move(*fd), b->init, b->course});
  return true;
}

bool SignalLedger::race_pending() {
  std::vector<pid_t> released;
  bool pending = false;
  {
    const std::lock_guard lock(mutex_);
    released.swap(released_);
    pending = race_armed_ && std::all_of(race_triggers_.begin(), race_triggers_.end(),
                                         [](const reaper::UniqueFd& fd) {
                                           return reaper::pidfd_exited(fd.get());
                                         });
  }
  for (pid_t pid : released) add_candidate(pid);
  return pending;
}

// A candidate known to be dying is so until its pidfd says it has exited: nothing need be read;
// one known to be stopping, until its stat says it has stopped. Whatever else activity() finds of
// it is kept for unaffected().
Activity SignalLedger::look(Candidate& c) {
  if (c.course == Course::dying && !reaper::pidfd_exited(c.pidfd.get())) return Activity::dying;
  // One on its way to a stop is settled once stopped (a SIGKILL the kernel sends it as its
  // namespace's init dies is waited for through the init's own candidate).
  if (c.course == Course::stopping && !reaper::pidfd_exited(c.pidfd.get())) {
    const auto self = reaper::ProcTable::read_one(c.pid, reaper::Detail::stat);
    if (self && self->state != 'T' && self->state != 't') return Activity::busy;
    if (self) return Activity::settled;
  }
  const Activity a =
      activity(c.pid, c.pidfd.get(), census_, [this](pid_t pid) { return held(pid); });
  if (a == Activity::dying || (a == Activity::busy && reaper::pidfd_exited(c.pidfd.get()))) {
    c.course = Course::dying;  // dying, or dead with a parent about to reap it: it runs nothing
  } else if (a != Activity::busy) {
    c.course = Course::open;  // settled or timed: dropped
  }  // busy and stopping stays so: SIGSTOP pending, it stops before it runs anything
  return a;
}

bool SignalLedger::settle_step() {
  if (race_pending()) return false;
  for (bool grew = true; grew;) {
    grew = false;
    std::vector<Candidate> still;
    std::vector<pid_t> dependants;
    for (Candidate& c : candidates_) {
      // A timer is not waited for: what it will do, a reaper racing it may meet or miss.
      const Activity a = look(c);
      if (a != Activity::settled && a != Activity::timed) {
        still.push_back(std::move(c));
      } else if (reaper::pidfd_exited(c.pidfd.get())) {
        // A death may take others along (its terminal's hang-up): they are looked at in turn.
        for (pid_t d : census_.dependants(c.pid, c.sid)) dependants.push_back(d);
      }
    }
    candidates_ = std::move(still);
    for (pid_t d : dependants) grew |= add_candidate(d);
  }
  // The race's triggers may have exited while the loop above looked at them: look again (which
  // may add members the race released), or a call could pass between the race's window opening
  // and its decoy being placed.
  if (!candidates_.empty() || race_pending()) return false;
  return candidates_.empty();
}

// A reaper that stops a tree of 1,000 and then kills it member by member would otherwise wait
// for each death in turn, and take ten times as long as without the ledger. What a call by number
// meets can change while the candidates settle only through them: a candidate that runs code of
// its own (a handler that signals or forks), the candidate itself (its pid freed once reaped),
// and for one that dies, the processes its death reaches: its children (orphaned, given their
// parent-death signal), its session when it leads one (hung up), its namespace when it is an
// init. With every candidate on a course that runs no code of its own (SIGKILL or SIGSTOP
// delivered, or dead) and the call's target none of those, the call meets the same world now as
// after the settling. Up to kLazyCandidates are kept unlooked-at; past that, settle_step() drops
// those that have settled.
bool SignalLedger::unaffected(const seccomp_notif& call) {
  if (candidates_.size() > kLazyCandidates ||
      std::any_of(candidates_.begin(), candidates_.end(),
                  [](const Candidate& c) { return c.course == Course::open || c.init; })) {
    return false;
  }
  {
    const std::lock_guard lock(mutex_);
    if (race_armed_ || !released_.empty()) return false;
  }
  const std::optional<pid_t> pid = named_process(call);
  if (!pid) return false;
  const auto target = reaper::ProcTable::read_one(*pid, reaper::Detail::stat);
  const auto registered = census_.origin(*pid);
  return std::none_of(candidates_.begin(), candidates_.end(), [&](const Candidate& c) {
    if (c.pid == *pid) return true;
    if (c.course != Course::dying) return false;
    return (target && taken_along(target->ppid, target->sid, c.pid, c.sid)) ||
           (registered && taken_along(registered->first, registered->second, c.pid, c.sid));
  });
}

}  // namespace reapcheck
