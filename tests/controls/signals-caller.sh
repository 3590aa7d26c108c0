#!/bin/sh
# Broken on purpose: kills the group, then SIGTERMs the program that asked it to kill — its
# caller, the reaper host, which runs the orchestrator's side. (It runs as `sh -c 'sh THIS ...'`
# from there: the caller is its parent's parent.)
. "$(dirname "$0")/../../fixtures/reapers/guard.sh"
kill -s KILL -- "-$2" 2>/dev/null
kill -TERM "$(ps -o ppid= -p "$PPID")" 2>/dev/null
exit 0
