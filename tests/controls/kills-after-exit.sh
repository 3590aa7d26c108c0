#!/bin/sh
# Broken on purpose: returns at once and leaves the kill to a helper that sends it only once the
# reaper's command (the shell exec: runs this script from) has exited — a `kill ... &` never
# waited for, made certain. The kill comes after the return however fast the harness notices
# the return: the signal ledger holds it until the members then alive are noted, so the case is
# late, never a pass (issue 41).
. "$(dirname "$0")/../../fixtures/reapers/guard.sh"
command=$PPID
# The helper polls, as such helpers do: the harness's verdict must not rest on when it wakes.
# (A helper that opened the command's pidfd itself, once started, and waited on it gave a leak in
# 1 case of 40: it had started after the command exited, found no process to open and gave up —
# a leak indeed. Opened before the command exits, such a helper is late in 120 of 120; one whose
# wakeup has not run yet reads as running: awaited_fds.h.)
{
  while kill -0 "$command" 2>/dev/null; do sleep 0.01; done
  kill -KILL -"$2"
} &
exit 0
