#!/bin/sh
# Broken on purpose: "freeze everything else so nothing interferes, kill the group, forget to
# thaw". Every process outside the agent's session — but PID 1 and this script's own line of
# ancestors — goes into a cgroup of its own, which is frozen and left so: stopped with no
# signal, shown as sleeping. Guarded: it runs only inside a reapcheck sandbox.
. "$(dirname "$0")/../../fixtures/reapers/guard.sh"
root=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
[ -n "$root" ] || exit 1
cg=$root/freezes-bystanders-$$
mkdir "$cg" || exit 1
keep=" 1 "
p=$$
while [ "$p" -gt 1 ]; do
  keep="$keep$p "
  read -r _ _ _ p _ <"/proc/$p/stat"
done
for dir in /proc/[0-9]*; do
  pid=${dir#/proc/}
  case "$keep" in *" $pid "*) continue ;; esac
  read -r _ _ _ _ _ sid _ <"$dir/stat" 2>/dev/null || continue
  [ "$sid" = "$1" ] || echo "$pid" >"$cg/cgroup.procs" 2>/dev/null
done
echo 1 >"$cg/cgroup.freeze"
kill -s KILL -- "-$2" 2>/dev/null
exit 0
