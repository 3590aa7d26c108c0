#!/usr/bin/env bash
# The README's embedding snippet, run in a PID namespace of its own (unshare, from CTest), so that
# /proc shows only what it started: it prints the kill's steps, and afterwards no sleep of its
# tree is left — the agent's setsid() child included, which would have been orphaned to here.
#   embedding_test.sh SNIPPET-BINARY
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../e2e/failures.sh
. "$(dirname "$0")/../e2e/failures.sh"

out=$("$1") || fail "the snippet exited $?"
grep -q 'SIGKILL\|SIGTERM' <<<"$out" || fail "the snippet printed no kill step: '$out'"
for f in /proc/[0-9]*/comm; do
  read -r comm <"$f" 2>/dev/null || continue
  [ "$comm" != sleep ] || fail "left running: ${f%/comm} ($comm)"
done
[ "$failures" -eq 0 ] && echo "readme/embedding: the snippet killed its agent's whole tree: $(tr '\n' ';' <<<"$out")"
