#!/bin/sh
# A supervise: supervisor, broken on purpose: it runs the agent and kills it on SIGTERM, but
# leaves a helper behind that, once the supervisor has exited, signals the supervisor's caller
# (the reaper host). The helper shares the tree's session and its parent is gone by then: only
# the kernel's fork events show it is the supervisor's, so its signal counts (issue 41).
. "$(dirname "$0")/../../fixtures/reapers/guard.sh"
caller=$PPID
supervisor=$$
# The helper polls, as such helpers do: the harness's verdict must not rest on when it wakes.
sh -c "while kill -0 $supervisor 2>/dev/null; do sleep 0.02; done; kill -USR1 $caller" &
"$@" &
agent=$!
trap 'kill -KILL $agent; exit 0' TERM
wait "$agent"
