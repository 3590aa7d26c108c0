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
  # Every descendant of the stopped ones in this snapshot, parents first: one ps a generation
  # would take 200 on deep-chain, past the reaper's deadline on a loaded machine.
  new=$(ps -e -o pid= -o ppid= | awk -v list="$stopped" '
    BEGIN { n = split(list, s, " "); for (i = 1; i <= n; i++) seen[s[i]] = 1 }
    { pid[NR] = $1; ppid[NR] = $2 }
    END {
      do {
        added = 0
        for (i = 1; i <= NR; i++) {
          if ((ppid[i] in seen) && !(pid[i] in seen)) { seen[pid[i]] = 1; print pid[i]; added = 1 }
        }
      } while (added)
    }')
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
