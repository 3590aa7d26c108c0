#!/bin/sh
# Broken on purpose: kills by interpreter name, as launchers that `pkill node` do. Every process
# whose comm is perl or node dies — the sibling agent's tree with the agent's.
. "$(dirname "$0")/../../fixtures/reapers/guard.sh"
for dir in /proc/[0-9]*; do
  case "$(cat "$dir/comm" 2>/dev/null)" in
    perl | node) kill -KILL "${dir#/proc/}" 2>/dev/null ;;
  esac
done
exit 0
