#!/bin/sh
# Broken on purpose: takes the group's pids once, SIGTERMs the group, waits the grace period,
# then SIGKILLs every pid of the old snapshot without looking again — pids that may have been
# freed, or given to someone else, meanwhile.
. "$(dirname "$0")/../../fixtures/reapers/guard.sh"
pids=$(ps -e -o pid= -o pgid= | awk -v g="$2" '$2 == g { print $1 }')
kill -s TERM -- "-$2" 2>/dev/null
sleep "$3"
for p in $pids; do kill -KILL "$p" 2>/dev/null; done
exit 0
