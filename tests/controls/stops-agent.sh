#!/bin/sh
# Broken on purpose: stops the agent and every descendant, then SIGKILLs all of them but the
# agent, which it leaves stopped (state T) for good, as a reaper that freezes the tree and forgets
# the process it was asked to kill. The agent is a member, whatever it runs (npm run dev in a
# package's scenario): it outlived the reaper, a leak. Guarded: it runs only inside a reapcheck
# sandbox.
. "$(dirname "$0")/../../fixtures/reapers/guard.sh"
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$(dirname "$0") exec python3 - "$1" <<'PY'
import os, signal, sys

from stopped_tree import stop_tree

agent = int(sys.argv[1])
for p in reversed(stop_tree(agent)):
    if p != agent:
        os.kill(p, signal.SIGKILL)
PY
