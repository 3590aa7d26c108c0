#!/usr/bin/env bash
# The Google Benchmark binaries as a user runs them, each on its smallest cases: every
# benchmark the filter selects runs without an error and reports a time. No figure is
# asserted: timings belong in the benchmark's report, not in a test that can flake.
#   gbench_test.sh BUILD_BIN_DIR
set -uo pipefail
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

bench() {  # bench NAME FILTER COMMAND...
  local name=$1 filter=$2
  shift 2
  "$@" --benchmark_filter="$filter" --benchmark_format=json >"$work/$name.json" 2>"$work/$name.err"
  local status=$?
  if [ "$status" -ne 0 ]; then
    echo "FAIL: $name exited $status"
    sed 's/^/  err: /' "$work/$name.err"
    failures=$((failures + 1))
    return
  fi
  perl -MJSON::PP -e '
    my $j = decode_json(do { local $/; open my $f, "<", $ARGV[0] or die; <$f> });
    my @b = @{ $j->{benchmarks} };
    die "no benchmark matched\n" unless @b;
    for (@b) {
      die "$_->{name}: $_->{error_message}\n" if $_->{error_occurred};
      die "$_->{name}: no time reported\n" unless $_->{real_time} > 0;
    }
    print scalar(@b), " benchmarks\n";
  ' "$work/$name.json" >"$work/$name.count" 2>"$work/$name.check"
  if [ $? -ne 0 ]; then
    echo "FAIL: $name: $(cat "$work/$name.check")"
    sed 's/^/  err: /' "$work/$name.err"
    failures=$((failures + 1))
  else
    echo "$name: $(cat "$work/$name.count")"
  fi
}

# snapshot_bench needs a PID namespace of its own, so that /proc holds only what it starts.
bench snapshot_bench '/100$' unshare --pid --fork --mount-proc "$bin/snapshot_bench" \
  --benchmark_min_time=0.01
bench reap_bench 'reap/(cgroup.kill|pidns)/wide/10/|case_overhead' "$bin/reap_bench"
bench teardown_bench '/100/' "$bin/teardown_bench"
exit $((failures > 0))
