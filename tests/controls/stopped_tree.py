# For the controls written in Python: the agent and every descendant, SIGSTOPped parents before
# children and again until a pass finds nothing new (a stopped process forks nothing). Returns
# them in that order; the caller kills them as it means to.
import os
import signal


def children(pid):
    found = []
    try:
        for task in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/children" % (pid, task)) as f:
                found += [int(c) for c in f.read().split()]
    except OSError:
        pass  # gone meanwhile
    return found


def stop_tree(agent):
    order = []
    while True:
        new = [agent] if not order else [c for p in order for c in children(p) if c not in order]
        if not new:
            return order
        for p in new:
            try:
                os.kill(p, signal.SIGSTOP)
                order.append(p)
            except ProcessLookupError:
                pass
