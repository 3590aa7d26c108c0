#!/bin/sh
# Broken on purpose: returns at once and leaves a detached helper to kill the group 700 ms
# later. The caller believes the tree is gone while it still runs and holds its ports.
. "$(dirname "$0")/../../fixtures/reapers/guard.sh"
setsid sh -c "sleep 0.7; kill -s KILL -- -$2" </dev/null >/dev/null 2>&1 &
exit 0
