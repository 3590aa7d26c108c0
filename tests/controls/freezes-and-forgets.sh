#!/bin/sh
# Broken on purpose: freezes the agent's group with SIGSTOP, as a careful reaper does first, and
# then returns without killing anything.
. "$(dirname "$0")/../../fixtures/reapers/guard.sh"
kill -s STOP -- "-$2" 2>/dev/null
exit 0
