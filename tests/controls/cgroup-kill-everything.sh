#!/bin/sh
# Broken on purpose: moves every process it can see into a cgroup of its own and writes its
# cgroup.kill — the sibling agent and the bystanders die with the tree. No system call names a
# process: only the kernel's tracepoint shows who was signalled, and at whose write.
. "$(dirname "$0")/../../fixtures/reapers/guard.sh"
# The case's delegated cgroup, wherever this machine mounts cgroup2 (/sys/fs/cgroup/unified on
# a hybrid host).
root=$(grep ' - cgroup2 ' /proc/self/mountinfo | head -n 1 | cut -d ' ' -f 5)
cg=$root/reapcheck-control-$$
mkdir "$cg" || exit 1
for p in /proc/[0-9]*; do
  p=${p#/proc/}
  [ "$p" = 1 ] || [ "$p" = $$ ] || echo "$p" >"$cg/cgroup.procs" 2>/dev/null
done
echo 1 >"$cg/cgroup.kill"
exit 0
