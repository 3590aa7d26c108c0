#!/usr/bin/env bash
# Two runs on one host: a developer's `reapcheck run` of the whole built-in matrix goes on while
# the crash test (a run SIGKILLed mid-case, its leftovers removed by the next) and the trace-host
# test (kept tracing instances, `clean`) run beside it. Each passes as it does alone, and the
# matrix run's verdicts are all as declared: no run takes, removes or judges by another's.
#   concurrent_test.sh BUILD_BIN_DIR SOURCE_DIR
set -uo pipefail
bin=$1/reapcheck
here=$(dirname "$0")
work=$(mktemp -d)
matrix=
cleanup() {
  [ -n "$matrix" ] && kill -s INT "$matrix" 2>/dev/null && wait "$matrix"
  rm -rf "$work"
}
trap cleanup EXIT
. "$here/failures.sh"

# The matrix run is under way before the others begin: its first progress line says a case has
# finished (and so that it has done its start-up clean-up); the rest is drained meanwhile.
mkfifo "$work/progress"
"$bin" run -j 1 --out "$work/matrix" >"$work/matrix.out" 2>"$work/progress" &
matrix=$!
exec 3<"$work/progress"
read -r _ <&3 || fail "the matrix run printed no progress"
cat <&3 >"$work/matrix.err" &

"$here/crash_test.sh" "$1" >"$work/crash.out" 2>&1 || fail "crash beside a matrix run: $(tail -5 "$work/crash.out")"
"$here/trace_host_test.sh" "$1" "$2" >"$work/trace.out" 2>&1
status=$?
[ "$status" -eq 0 ] || [ "$status" -eq 77 ] ||
  fail "trace-host beside a matrix run: $(tail -5 "$work/trace.out")"
kill -0 "$matrix" 2>/dev/null || fail "the matrix run ended before the others did: they ran alone"
wait "$matrix"
status=$?
matrix=
[ "$status" -eq 0 ] || fail "the matrix run beside them exited $status: $(tail -20 "$work/matrix.out")"
echo "concurrent: $failures failure(s)"
[ "$failures" -eq 0 ]
