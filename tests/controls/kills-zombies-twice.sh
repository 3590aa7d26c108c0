#!/bin/sh
# Correct on purpose, for trees that stay below their agent: stops the agent and every
# descendant, parents first, then SIGKILLs each, leaves first, waits on its pidfd until it has
# died and SIGKILLs it again. Its parent, stopped, reaps nothing: the second SIGKILL reaches a
# zombie whose id cannot be freed, no pid-reuse race, and must not be judged stray (issue 50).
# The agent, whose parent (the reaper host) reaps it, is killed once. Guarded: it runs only
# inside a reapcheck sandbox.
. "$(dirname "$0")/../../fixtures/reapers/guard.sh"
exec python3 - "$1" <<'PY'
import os, select, signal, sys

agent = int(sys.argv[1])

def children(pid):
    found = []
    try:
        for task in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/children" % (pid, task)) as f:
                found += [int(c) for c in f.read().split()]
    except OSError:
        pass  # gone meanwhile
    return found

# Parents before children, again until a pass finds nothing new (a stopped process forks nothing).
order = []
while True:
    new = [agent] if not order else [c for p in order for c in children(p) if c not in order]
    if not new:
        break
    for p in new:
        try:
            os.kill(p, signal.SIGSTOP)
            order.append(p)
        except ProcessLookupError:
            pass

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
