#!/bin/bash
# The matrix's CTest tests fail on a wrong expectation, and say which cell: run as they are run
# (one `reapcheck run` for several cells), but expecting pass where pgroup is known to leak.
#   negative_check.sh REAPCHECK JUNIT_DIR
set -u
bin=$1
junit=$2/negative-check.xml
out=$("$bin" run --scenario setsid-escape --reaper pgroup --reaper proc-pidfd -j 1 --quiet \
  --keep-trace --expect-pass --junit "$junit" 2>&1)
rc=$?
fail() { echo "negative check: $1"; echo "$out"; exit 1; }
[ "$rc" -eq 1 ] || fail "expected exit status 1 from a wrong expectation, got $rc"
grep -q 'setsid-escape × pgroup' <<<"$out" || fail "the output does not name the failing cell"
[ "$(grep -c '<testcase' "$junit")" -eq 2 ] || fail "$junit does not hold one testcase per cell"
[ "$(grep -c '<failure' "$junit")" -eq 1 ] || fail "$junit does not fail exactly the one cell"
echo "negative check: a wrong expectation fails the test and names setsid-escape × pgroup"
