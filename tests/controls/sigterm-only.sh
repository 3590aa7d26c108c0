#!/bin/sh
# Broken on purpose: SIGTERM to the group and no SIGKILL after the grace period.
. "$(dirname "$0")/../../fixtures/reapers/guard.sh"
kill -s TERM -- "-$2" 2>/dev/null
sleep "$3"
exit 0
