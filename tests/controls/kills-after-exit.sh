#!/bin/sh
# Broken on purpose: returns at once and leaves the kill to a helper that sends it only once the
# reaper's command (the shell exec: runs this script from) has exited — a `kill ... &` never
# waited for, made certain. The kill comes after the return however fast the harness notices
# the return: the signal ledger holds it until the members then alive are noted, so the case is
# late, never a pass (issue 41).
. "$(dirname "$0")/../../fixtures/reapers/guard.sh"
# The helper waits on the command's pidfd, taken while the command waits on this script: it
# wakes when the command has exited, never before, whatever the machine's speed.
perl "$(dirname "$0")/after-exit.pl" "$PPID" KILL -"$2"
exit 0
