#!/bin/sh
# Broken on purpose: kills every other process of the agent's session (not itself, not its
# parent), then exits 3, as a script under `set -e` whose last kill found its pid gone does. The
# exit is its failure — reaper-error — also where it runs inside the tree it kills, as the
# agent's own kill command (reaper-inside-tree). Guarded: it runs only inside a reapcheck sandbox.
. "$(dirname "$0")/../../fixtures/reapers/guard.sh"
for dir in /proc/[0-9]*; do
  pid=${dir#/proc/}
  if [ "$pid" = $$ ] || [ "$pid" = "$PPID" ]; then continue; fi
  read -r _ _ _ _ _ sid _ <"$dir/stat" 2>/dev/null || continue
  [ "$sid" = "$1" ] && kill -s KILL "$pid" 2>/dev/null
done
exit 3
