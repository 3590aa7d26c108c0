#!/bin/sh
# Broken on purpose: kills the agent's group, which ends the tree, but first marks every other
# process it can see for the OOM killer (oom_score_adj 1000) and moves it into a cgroup of its
# own making — harm done with no signal and no system call the signal ledger watches, left so.
# Only the bystanders' attributes, read before and after, show it.
. "$(dirname "$0")/../../fixtures/reapers/guard.sh"
me=$$
cg=$(sed -n 's/^0:://p' /proc/self/cgroup)
mount=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
target="$mount$cg/marked-by-control"
mkdir -p "$target" 2>/dev/null
for dir in /proc/[0-9]*; do
  pid=${dir#/proc/}
  [ "$pid" = 1 ] || [ "$pid" = "$me" ] || [ "$pid" = "$PPID" ] && continue
  echo 1000 >"$dir/oom_score_adj" 2>/dev/null
  echo "$pid" >"$target/cgroup.procs" 2>/dev/null
done
kill -KILL "-$2"
exit 0
