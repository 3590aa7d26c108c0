#!/bin/sh
# Broken on purpose: kill -9 -1, every process the reaper may signal.
. "$(dirname "$0")/../../fixtures/reapers/guard.sh"
kill -KILL -1 2>/dev/null
exit 0
