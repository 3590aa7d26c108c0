#!/bin/sh
# Correct on purpose: SIGKILLs the agent and every descendant, each through kill() of one of its
# threads' ids (its newest thread's, not its leader's, where it has several). kill(2) of a thread
# id signals the whole process, as of its leader's id: each call reaches a live member and must
# be judged so, neither stray nor a miss (issue 50). Guarded: it runs only inside a reapcheck
# sandbox.
. "$(dirname "$0")/../../fixtures/reapers/guard.sh"
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$(dirname "$0") exec python3 - "$1" <<'PY'
import os, signal, sys

from stopped_tree import stop_tree

agent = int(sys.argv[1])

order = stop_tree(agent)

for p in reversed(order):
    try:
        tid = max(int(t) for t in os.listdir("/proc/%d/task" % p))
        os.kill(tid, signal.SIGKILL)
    except (OSError, ValueError):
        pass
PY
