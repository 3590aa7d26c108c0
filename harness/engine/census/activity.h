// Where a process is on its way, read from /proc at one instant: done with what reached it,
// dying, or still doing something (a handler to run, a parent about to reap it). The signal
// ledger holds the reaper's calls until the processes they reached have settled; the audit stops
// watching once nothing of the tree can change any more.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <optional>

#include "harness/engine/census/census.h"

namespace reapcheck {

enum class Activity {
  settled,  // idle for good (every thread blocked with no deadline, or none before the
            // horizon, or stopped), nothing pending; or dead and reaped (or never to be reaped)
  timed,    // idle, but a thread waits with a deadline (a timer, a sleep): it will act again,
            // perhaps before the horizon
  dying,    // a fatal signal pending, or exiting: its pidfd will fire
  busy,     // running, a handler still to run (or a signal for a signalfd to read), or dead
            // with a parent about to reap it
};

// `pidfd` holds the process `pid`; `census` tells the reaper host (which reaps) apart. `held`,
// when given, says whether a process or thread is itself held (its own signal call kept
// unanswered by the signal ledger): a dead process whose parent is held is not about to be
// reaped, and a thread held in its call waits for good. A thread in a signal call that is not
// held is only waiting for the ledger's answer and goes on: the process is busy. `horizon`, when
// given, is where the caller's watch ends: a wait whose timeout cannot expire before it (its
// timeout, counted from the thread's start at the earliest, ends later) is, to that watch, one
// with no end. Read for the timeouts given in ms (epoll_wait, epoll_pwait, poll) and those behind
// a pointer, from the thread's memory (ppoll, select, pselect6, epoll_pwait2, rt_sigtimedwait,
// futex, nanosleep, clock_nanosleep); a deadline on CLOCK_REALTIME, or one that cannot be read,
// counts as one that may end at any moment.
Activity activity(pid_t pid, int pidfd, const Census& census,
                  const std::function<bool(pid_t)>& held = {},
                  std::optional<std::chrono::steady_clock::time_point> horizon = {});

// The process is on its way out: SIGKILL is pending (the kernel turns a fatal signal into
// SIGKILL on every thread as it is sent, where it wakes a thread to take it), or a signal it will
// die of as soon as it runs (unblocked, neither caught nor ignored, fatal by default, the process
// neither stopped, frozen, traced nor an init), or one of its threads is exiting; or it is in a
// PID namespace whose init is so, which the kernel SIGKILLs whole once the init exits. Read from
// /proc/<pid>/task/*/ and the namespaces' fds; false when the process is gone.
bool dying(pid_t pid);

// Where a signal sets a process on its way for good, from the moment it is delivered.
enum class Course {
  open,      // no telling: a handler may run, or nothing happens at all
  stopping,  // SIGSTOP: it stops before it runs any code of its own (the kernel takes every
             // pending signal, the stop among them, before it returns to user space)
  dying,     // SIGKILL: it dies without running any code of its own
};

// What a signal about to be sent to a live process sets it on, and what its death would reach.
struct Bearing {
  Course course = Course::open;
  pid_t sid = 0;
  bool init = false;  // the init of a PID namespace below ours: its death takes the namespace
};

// The bearing of `sig` on the process `pid`, from one read of /proc/<pid>/status; nothing when
// it is gone. A traced process stops only if its tracer lets it, and an init takes neither signal
// from inside its namespace: the course is then open.
std::optional<Bearing> bearing_of(pid_t pid, int sig);

// The process `pidfd` holds is alive and not dying. Its pidfd is read again once dying() says
// no: a process that exits while /proc is read (a leader already a zombie, a table entry gone)
// says nothing there, and would otherwise count as alive and idle.
bool lives_on(pid_t pid, int pidfd);

// The same for a process known by its pid alone (a pidfd is opened for the reads): false when
// it is gone.
bool lives_on(pid_t pid);

// The process `pidfd` holds has exited, or one of its own threads is dying: the contrary of
// lives_on(), less its look at the namespaces around the process, for a process of the case's
// own namespace (the reaper's command, which the signal ledger asks after at each call of its
// helpers).
bool exiting(pid_t pid, int pidfd);

}  // namespace reapcheck
