#!/bin/sh
# Correct on purpose, for trees that stay below their agent: stops the agent and every
# descendant, parents before children and again until no new one appears (a stopped process
# forks nothing), then SIGKILLs each, leaves first. A stopped parent reaps nothing, so each
# SIGKILL leaves a zombie that nobody reaps until the tree's last process is gone: the signal
# ledger must not hold the calls that follow waiting for that reaping (issue 41).
. "$(dirname "$0")/../../fixtures/reapers/guard.sh"
stopped=""
kill -STOP "$1" 2>/dev/null && stopped="$1"
while :; do
  new=$(ps -e -o pid= -o ppid= | awk -v list=" $stopped " '
    index(list, " " $2 " ") && !index(list, " " $1 " ") { print $1 }')
  [ -n "$new" ] || break
  for p in $new; do
    kill -STOP "$p" 2>/dev/null
    stopped="$stopped $p"
  done
done
order=""
for p in $stopped; do order="$p $order"; done
for p in $order; do kill -KILL "$p" 2>/dev/null; done
exit 0
