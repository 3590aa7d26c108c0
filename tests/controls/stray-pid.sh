#!/bin/sh
# Broken on purpose: an off-by-N slip. It kills the agent's group, then a pid a thousand above
# the agent's, where nothing of the tree is.
. "$(dirname "$0")/../../fixtures/reapers/guard.sh"
kill -s KILL -- "-$2" 2>/dev/null
kill -KILL "$(($1 + 1000))" 2>/dev/null
exit 0
