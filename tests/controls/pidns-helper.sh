#!/bin/sh
# Correct on purpose: a helper of its own runs in a PID namespace it makes for it and there sends
# kill(-1), which reaches only that namespace — the helper's own child, nothing of the case; then
# it SIGKILLs the agent's group. The ledger must resolve the kill(-1) in the sender's namespace,
# as the kernel does (issue 41), not as reaching every process of the sandbox.
. "$(dirname "$0")/../../fixtures/reapers/guard.sh"
unshare --pid --fork sh -c 'sleep 60 & kill -KILL -1; wait' 2>/dev/null
kill -KILL "-$2"
exit 0
