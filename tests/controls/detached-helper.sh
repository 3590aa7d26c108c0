#!/bin/sh
# Correct on purpose, for trees in one process group: SIGKILLs the agent's group, then leaves a
# helper of its own running, detached into a session of its own, as a delayed clean-up would be
# (it runs until the sandbox ends: nothing in the verdict rests on how long it lives).
# The helper is the reaper's, which the kernel's fork events show however it detached: it is
# reported as left running by the reaper, never as a survivor of the tree (issue 41).
. "$(dirname "$0")/../../fixtures/reapers/guard.sh"
kill -KILL -"$2"
setsid sh -c 'exec sleep infinity' </dev/null >/dev/null 2>&1 &
exit 0
