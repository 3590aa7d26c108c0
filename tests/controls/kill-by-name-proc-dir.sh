#!/bin/sh
# Broken on purpose: kills by program name, as kill-by-name does, but through pidfd_send_signal()
# on each /proc/<pid> directory, which the kernel takes as a pidfd: the signal ledger must still
# say whom each call reached. Guarded: it runs only inside a reapcheck sandbox.
. "$(dirname "$0")/../../fixtures/reapers/guard.sh"
exec python3 -c '
import os, signal
for entry in os.listdir("/proc"):
    if not entry.isdigit():
        continue
    try:
        with open("/proc/%s/comm" % entry) as f:
            comm = f.read().strip()
        if comm in ("perl", "node", "reapcheck-c-mem"):
            fd = os.open("/proc/" + entry, os.O_DIRECTORY)
            signal.pidfd_send_signal(fd, signal.SIGKILL)
            os.close(fd)
    except OSError:
        pass  # gone meanwhile
'
