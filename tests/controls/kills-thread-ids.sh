#!/bin/sh
# Correct on purpose: SIGKILLs the agent and every descendant, each through kill() of one of its
# threads' ids (its newest thread's, not its leader's, where it has several). kill(2) of a thread
# id signals the whole process, as of its leader's id: each call reaches a live member and must
# be judged so, neither stray nor a miss (issue 50). Guarded: it runs only inside a reapcheck
# sandbox.
. "$(dirname "$0")/../../fixtures/reapers/guard.sh"
exec python3 - "$1" <<'PY'
import os, signal, sys

agent = int(sys.argv[1])

def children(pid):
    found = []
    try:
        for task in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/children" % (pid, task)) as f:
                found += [int(c) for c in f.read().split()]
    except OSError:
        pass
    return found

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
    try:
        tid = max(int(t) for t in os.listdir("/proc/%d/task" % p))
        os.kill(tid, signal.SIGKILL)
    except (OSError, ValueError):
        pass
PY
