// The signal ledger: every signal-sending system call made under the seccomp filter of
// signal_filter.h, recorded while its sender waits. The target is resolved at that instant (the
// census says who holds the pid, group or pidfd then), and the call is then let through. A
// thread of the case runner serves the listener, so a sender never waits on the case's own
// work.
#pragma once

#include <linux/seccomp.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "harness/engine/census/activity.h"
#include "harness/engine/census/census.h"
#include "harness/model/result.h"
#include "harness/sandbox/kernel_signal_trace.h"
#include "harness/support/hold_clock.h"
#include "reaper/os/unique_fd.h"

namespace reapcheck {

class SignalLedger {
 public:
  using Clock = std::chrono::steady_clock;

  // Serves `listener` until destroyed; with `kernel`, also records the signals the kernel
  // generates for the case's processes (kernel_signal_trace.h). Each time it holds a call of
  // the reaper's is counted on `hold` (when given).
  SignalLedger(reaper::UniqueFd listener, Census& census, HoldClock* hold,
               std::optional<KernelSignalFeed> kernel = std::nullopt);
  ~SignalLedger();
  SignalLedger(const SignalLedger&) = delete;
  SignalLedger& operator=(const SignalLedger&) = delete;

  // Waits until every signal the kernel generated before now has been recorded; false when
  // that did not happen by `deadline` (the records then lack the latest). True without a feed.
  bool sync_kernel(Clock::time_point deadline);

  // How many events the kernel's trace lost (its ring buffer overran) up to the last barrier.
  uint64_t kernel_lost() const;

  // The calls recorded so far, in order, timed from `epoch` (the kill request).
  std::vector<SignalRecord> records(Clock::time_point epoch) const;

  // The members that had already exited when the reaper's side first signalled anything (the
  // existence probe aside): the tree it met was not the one announced. A held member the harness
  // released (race_staged) exited at the harness's word, not on its own: it is not listed.
  std::vector<std::string> gone_before_the_reaper() const;

  // Whether a real signal of the reaper's side has reached `pid` so far: a supervisor acts on
  // the agent's exit (dumb-init signals the agent's group) before any kill is requested.
  bool reaper_reached(pid_t pid) const;
  // The same, or a signal the kernel generated reached it, whoever's act set it off: a PID
  // namespace's end SIGKILLs what is left in it, in the context of its init.
  bool reached_or_kernel(pid_t pid) const;

  // The reaper has returned and the members then alive are noted. Until now, a signal call made
  // by a leftover of the reaper's — a process whose reaper command (or supervisor) had exited
  // when it made the call, a `kill ... &` never waited for — was held here: the member it kills
  // is alive when the return is noted, and late, however fast the harness noticed the return.
  void release_after_return();

  // A PID-reuse race (race.h) is armed: once every process behind `triggers` has exited, the
  // reaper's calls by number wait until the race has been staged (race_staged), so that whether
  // a call comes before or after the decoy never depends on the scheduler.
  void arm_race(const std::vector<int>& triggers);
  // The decoy is in place (or will not be); `released` are the held members let go, whose exit
  // the reaper's next calls wait for in turn.
  void race_staged(const std::vector<pid_t>& released);

  // `reapcheck watch`: from now on, a kill() of the reaper's side by number, aimed at a pid or
  // group where nothing at all lives (a stale id), first has `place` put a decoy there, as a
  // recycled id would hold some other process in production: the call then reaches it, a hit
  // on a process the sender never started, where without it the call would be only stray.
  // Empty: no more decoys; it returns once no placement is under way.
  void set_stray_decoys(std::function<bool(pid_t)> place);

 private:
  bool reached(pid_t pid, bool or_kernel) const;
  // A process a recorded call reached, which that call may have set dying.
  struct Candidate {
    pid_t pid = 0;
    pid_t sid = 0;
    reaper::UniqueFd pidfd;
    bool init = false;             // the init of a PID namespace below ours
    Course course = Course::open;  // what the signals that reached it set it on
  };

  // A call taken from the listener, with its sender as the census told it then (asked once a
  // call: the census may read the sender's /proc entry to say).
  struct Taken {
    seccomp_notif call;
    Party sender;
  };

  // A call of the reaper's that names a pid or group by number, held until the world settles.
  struct Deferred {
    Taken taken;
    Clock::time_point since;
  };

  void serve();
  bool take();
  // Whether `sender` acts for a reaper command that has exited: a leftover of the reaper's.
  bool after_return(pid_t sender);
  // A call to go through: at once, or, when it is a signal call of the reaper's side that names
  // a pid or group by number, once the world has settled (or it is unaffected()).
  void route(Taken taken);
  // Once the return is noted, the leftovers' held calls go their way (serving thread).
  void release_held_leftovers();
  void answer(const Taken& taken, bool unsettled);
  // Lets the call go through, unrecorded.
  void let_through(const seccomp_notif& call);
  // set_stray_decoys()'s decoy, when `call` is such a kill (serving thread).
  void place_stray_decoy(const seccomp_notif& call, int sig, const Party& sender);
  // One look at the candidates: those that have settled are dropped (with, for those that died,
  // the members their death may take along added in their place). True when none is left: what
  // the recorded calls set in motion is over — handlers run, deaths done, the dead reaped where
  // a parent reaps. Holding the reaper's calls by number until then puts each in the world the
  // slowest possible reaper would meet, so whether a pid is still held never depends on the
  // scheduler.
  bool settle_step();
  // One candidate's activity; what it learns of the candidate's course is kept.
  Activity look(Candidate& c);
  // Whether `call`, one of the reaper's by number, meets the same world now as once what earlier
  // calls set in motion is over: then it need not wait (signal_ledger_settle.cpp).
  bool unaffected(const seccomp_notif& call);
  // The race is armed and its triggers have exited, but it has not been staged yet.
  bool race_pending();
  // Whether `pid`'s own signal call is held here: it reaps nothing until it is answered.
  bool held(pid_t pid) const;
  // `pid` has been reached by `sig` (0: by none, a dependant): a candidate from now on.
  bool add_candidate(pid_t pid, int sig = 0);
  // Reads the kernel's feed; false at its end. Births go to the census as they come.
  bool read_kernel();
  // Before a call of `sender`'s is judged, the kernel's fork events up to now are read, unless
  // its birth is known already: who it is may rest on its lineage (a helper of the reaper's that
  // detached into the tree's session). Once per sender; bounded by kLineageBound.
  void learn_lineage(pid_t sender);
  // Reads the kernel's feed up to a marker written now: every event traced before it is in the
  // census. Bounded by kLineageBound.
  void kernel_barrier();
  void record_kernel(const GeneratedSignal& s);

  reaper::UniqueFd listener_;
  reaper::UniqueFd stop_;  // an eventfd: written to end serve()
  reaper::UniqueFd wake_;  // an eventfd: written when the race has been staged
  Census& census_;
  HoldClock* const hold_;
  mutable std::mutex mutex_;
  std::mutex decoy_mutex_;  // held while a decoy is placed
  std::function<bool(pid_t)> place_decoy_;
  std::vector<std::pair<Clock::time_point, SignalRecord>> records_;  // in time order
  const std::optional<KernelSignalFeed> kernel_;
  std::string kernel_partial_;  // the serving thread's: a feed line not yet whole
  uint64_t sync_asked_ = 0;     // under mutex_, with sync_seen_: the barrier's markers
  uint64_t sync_seen_ = 0;
  uint64_t kernel_lost_ = 0;
  uint64_t lineage_asked_ = 0;  // the serving thread's: its own barriers' markers
  uint64_t lineage_seen_ = 0;
  std::set<pid_t> lineage_learnt_;  // the senders whose lineage was read already
  std::condition_variable synced_;
  // Shared with the case's thread, under mutex_:
  std::vector<reaper::UniqueFd> race_triggers_;
  bool race_armed_ = false;
  std::vector<pid_t> released_;
  std::set<pid_t> released_ever_;  // held members the harness let go: their exit is its doing
  bool reaper_signalled_ = false;
  std::vector<std::string> gone_before_;
  // The serving thread's alone:
  std::vector<Candidate> candidates_;
  std::deque<Deferred> deferred_;
  std::vector<Taken> after_return_;          // leftovers' calls, until release_after_return()
  std::map<pid_t, reaper::UniqueFd> roots_;  // the reaper commands' pidfds, by pid
  bool returned_ = false;                    // under mutex_: release_after_return() was called
  std::thread thread_;
};

}  // namespace reapcheck
