#!/bin/sh
# Broken on purpose: returns at once and leaves the kill to a helper that sends it only once the
# reaper's command (the shell exec: runs this script from) has exited — a `kill ... &` never
# waited for, made certain. The kill comes after the return however fast the harness notices
# the return: the signal ledger holds it until the members then alive are noted, so the case is
# late, never a pass (issue 41).
. "$(dirname "$0")/../../fixtures/reapers/guard.sh"
command=$PPID
# The helper polls, as such helpers do: the harness's verdict must not rest on when it wakes.
# (A helper blocked on the command's pidfd instead was judged idle for good in 1 case of 40:
# a gap of the audit's, noted in the closing note of stop 41.)
{
  while kill -0 "$command" 2>/dev/null; do sleep 0.01; done
  kill -KILL -"$2"
} &
exit 0
