#!/bin/sh
# Broken on purpose: kills by program name, as launchers that kill everything named node do.
# Every process whose comm is one of the fixtures' programs (perl, node, and reapcheck-c-member,
# which the kernel cuts to 15 bytes) dies — the sibling agent's tree with the agent's. Guarded:
# it runs only inside a reapcheck sandbox.
. "$(dirname "$0")/../../fixtures/reapers/guard.sh"
for dir in /proc/[0-9]*; do
  # read, not cat: a fork per process would outlast the reaper's deadline on wide-tree's 1,000
  # members where a fork costs milliseconds.
  comm=
  read -r comm <"$dir/comm" 2>/dev/null
  case "$comm" in
    perl | node | reapcheck-c-mem) kill -KILL "${dir#/proc/}" 2>/dev/null ;;
  esac
done
exit 0
