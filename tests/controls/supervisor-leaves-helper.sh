#!/bin/sh
# A supervise: supervisor, broken on purpose: it runs the agent and kills it on SIGTERM, but
# leaves a helper behind that, once the supervisor has exited, signals the supervisor's caller
# (the reaper host). The helper shares the tree's session and its parent is gone by then: only
# the kernel's fork events show it is the supervisor's, so its signal counts (issue 41).
. "$(dirname "$0")/../../fixtures/reapers/guard.sh"
# The helper waits on the supervisor's pidfd, taken before the supervisor goes on: it wakes when
# the supervisor has exited, never before, whatever the machine's speed.
perl "$(dirname "$0")/after-exit.pl" $$ USR1 "$PPID"
"$@" &
agent=$!
trap 'kill -KILL $agent; exit 0' TERM
wait "$agent"
