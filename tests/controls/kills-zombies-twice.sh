#!/bin/sh
# Correct on purpose, for trees that stay below their agent: stops the agent and every
# descendant, parents first, then SIGKILLs each, leaves first, waits on its pidfd until it has
# died and SIGKILLs it again. Its parent, stopped, reaps nothing: the second SIGKILL reaches a
# zombie whose id cannot be freed, no pid-reuse race, and must not be judged stray (issue 50).
# The agent, whose parent (the reaper host) reaps it, is killed once. Guarded: it runs only
# inside a reapcheck sandbox.
. "$(dirname "$0")/../../fixtures/reapers/guard.sh"
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$(dirname "$0") exec python3 - "$1" <<'PY'
import os, select, signal, sys

from stopped_tree import stop_tree

agent = int(sys.argv[1])

order = stop_tree(agent)

for p in reversed(order):
    if p == agent:
        os.kill(p, signal.SIGKILL)
        continue
    fd = os.pidfd_open(p)
    os.kill(p, signal.SIGKILL)
    select.select([fd], [], [])  # readable once it has exited: a zombie, its parent stopped
    os.kill(p, signal.SIGKILL)
    os.close(fd)
PY
