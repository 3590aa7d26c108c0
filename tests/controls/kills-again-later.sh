#!/bin/sh
# Broken on purpose: SIGKILLs the agent's group, as a correct reaper of a one-group tree does,
# then leaves a helper that sends the agent's pid SIGKILL again 150 ms after the reaper's command
# has exited: a kill by a stale pid, which lands on whatever holds that id by then. The tree is
# dead long before; the case must still watch the helper while it is busy and judge its call
# (issue 50). Guarded: it runs only inside a reapcheck sandbox.
. "$(dirname "$0")/../../fixtures/reapers/guard.sh"
kill -KILL -"$2"
perl "$(dirname "$0")/after-exit.pl" "$PPID" KILL "$1" 150
exit 0
