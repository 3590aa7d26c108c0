#!/bin/sh
# Broken on purpose: SIGKILL to the agent's process group only; whatever left the group lives.
. "$(dirname "$0")/../../fixtures/reapers/guard.sh"
kill -s KILL -- "-$2" 2>/dev/null
exit 0
