#!/usr/bin/env bash
# Two runs on one host: a developer's `reapcheck run` of the whole built-in matrix goes on while
# the crash test (a run SIGKILLed mid-case, its leftovers removed by the next) and the trace-host
# test (kept tracing instances, `clean`) run beside it. Each passes as it does alone, and the
# matrix run's verdicts are all as declared: no run takes, removes or judges by another's. Once
# they are done and the matrix run has finished a few cases more (its scratch, cgroup area and
# tracing instance still its own after their clean-ups), it is interrupted: the rest of its cases
# would run alone, as the matrix tests do.
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
# finished (and so that it has done its start-up clean-up). The rest is drained meanwhile; once
# the others are done ($work/others-done), the drain says on $work/after when the matrix run has
# finished `more` cases since, or has ended.
more=3
mkfifo "$work/progress" "$work/after"
exec 4<>"$work/after"  # open both ways: neither side's open waits for the other
"$bin" run -j 1 --out "$work/matrix" >"$work/matrix.out" 2>"$work/progress" &
matrix=$!
exec 3<"$work/progress"
read -r _ <&3 || fail "the matrix run printed no progress"
(
  after=0
  while IFS= read -r line; do
    printf '%s\n' "$line" >>"$work/matrix.err"
    case $line in "["*/*"] "*) [ -e "$work/others-done" ] && after=$((after + 1)) ;; esac
    [ "$after" -eq "$more" ] && echo cases >&4
  done
  [ "$after" -ge "$more" ] || echo ended >&4
) <&3 &
drain=$!
exec 3<&-

"$here/crash_test.sh" "$1" >"$work/crash.out" 2>&1 || fail "crash beside a matrix run: $(tail -5 "$work/crash.out")"
"$here/trace_host_test.sh" "$1" "$2" >"$work/trace.out" 2>&1
status=$?
[ "$status" -eq 0 ] || [ "$status" -eq 77 ] ||
  fail "trace-host beside a matrix run: $(tail -5 "$work/trace.out")"
touch "$work/others-done"
read -r why <&4
[ "$why" = cases ] || fail "the matrix run ended before the others did and $more cases more: they ran alone"
kill -s INT "$matrix" 2>/dev/null
wait "$matrix"
status=$?
matrix=
wait "$drain"
[ "$status" -eq 130 ] || fail "the interrupted matrix run exited $status, not 130: $(tail -20 "$work/matrix.out")"
# Every case it finished, those beside the others and after them, as declared.
perl -MJSON::PP -e '
  my ($file, $more) = @ARGV;
  my $r = decode_json(do { local $/; open my $f, "<", $file or die "$file: $!\n"; <$f> });
  my @cases = @{ $r->{cases} };
  die "only " . @cases . " cases finished\n" unless @cases > $more;
  my @bad = grep { !$_->{as_expected} } @cases;
  die join("", map { "$_->{scenario} × $_->{reaper}: $_->{verdict}, expected $_->{expected}: $_->{reason}\n" } @bad)
    if @bad;
  print "the matrix run beside them: " . @cases . " cases finished, each as declared\n";
' "$work/matrix/results.json" "$more" || fail "the matrix run beside them: a verdict not as declared"
echo "concurrent: $failures failure(s)"
[ "$failures" -eq 0 ]
