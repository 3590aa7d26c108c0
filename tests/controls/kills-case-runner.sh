#!/bin/sh
# Broken on purpose: SIGKILLs PID 1 first, as a reaper that kills by path did when the case
# runner's command line carried the user's folder, then kills the agent's group as it should.
# The hit on the harness is the verdict; the members it did kill are no survivors, and its group
# kill is not held waiting for the case runner, which as its namespace's init runs on (issue 50).
# Guarded: it runs only inside a reapcheck sandbox.
. "$(dirname "$0")/../../fixtures/reapers/guard.sh"
kill -KILL 1 2>/dev/null
kill -KILL -"$2" 2>/dev/null
exit 0
