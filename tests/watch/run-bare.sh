#!/usr/bin/env bash
# run-bare.sh [--clean] [--runs N] SUITE: runs one of tests/watch's suites bare (no reapcheck) in a
# PID, mount and network namespace of its own (unshare --pid --fork --mount-proc --net, loopback
# up), and prints the suite's wall time in ms, its exit status and, right after it returns, every
# process of the namespace still alive: what a `reapcheck watch` run of the same suite must call
# its leaks. The namespace's end (its pid 1 exiting) kills them, so nothing outlives a run, and a
# suite's `pkill -f` reaches only that namespace.
#
# SUITE: rust-crate | cmake-project | npm-package | python-suite
# --clean   run only the suite's clean test (nothing may be left)
# --runs N  N runs, each in a fresh namespace, then the median wall time
# The build (cargo test --no-run, cmake configure + build) runs first, in the namespace, untimed.
# CARGO (default cargo) and PYTHON (default python3) choose the toolchain.
#
# The suite's folder reaches the namespace through the environment, never the command line: the
# rust crate's kills_by_folder test runs `pkill -f <its folder>`, which would end this script if
# its arguments held that path.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)

if [ "${1:-}" = --inside ]; then
  # pid 1 of the namespace from here on.
  dir=$REAPCHECK_BARE_DIR suite=$REAPCHECK_BARE_SUITE clean=$REAPCHECK_BARE_CLEAN
  ip link set lo up 2>/dev/null || true
  cd "$dir"
  cargo=${CARGO:-cargo} python=${PYTHON:-python3}
  case $suite in
    rust-crate)
      build=("$cargo" test --offline --no-run -q)
      if $clean; then run=("$cargo" test --offline --test kills_its_child)
      else run=("$cargo" test --offline); fi ;;
    cmake-project)
      build=(sh -c 'cmake -S . -B build >/dev/null && cmake --build build -j2 >/dev/null')
      if $clean; then run=(ctest --test-dir build --output-on-failure -R '^clean$')
      else run=(ctest --test-dir build --output-on-failure); fi ;;
    npm-package)
      build=(true)
      if $clean; then run=(npm test -- test/clean.test.js)
      else run=(npm test); fi ;;
    python-suite)
      build=(true)
      if $clean; then run=("$python" -m unittest discover -s tests -p test_clean.py -v)
      else run=("$python" -m unittest discover -s tests -v); fi ;;
  esac
  "${build[@]}" >&2
  echo "== run: ${run[*]}"
  start=$(date +%s%N)
  set +e
  "${run[@]}" </dev/null
  status=$?
  set -e
  end=$(date +%s%N)
  ps -e -o pid=,ppid=,sid=,pgid=,args= >/tmp/reapcheck-bare-ps.$$ 2>&1 || true
  echo "== wall_ms $(( (end - start) / 1000000 )) status $status"
  echo "== left (pid ppid sid pgid args; pid 1 is this script):"
  awk '$1 != 1 && $5 != "ps" { print; n++ } END { if (!n) print "   (none)" }' /tmp/reapcheck-bare-ps.$$
  rm -f /tmp/reapcheck-bare-ps.$$
  exit "$status"
fi

clean=false runs=1
while [ $# -gt 0 ]; do
  case $1 in
    --clean) clean=true; shift ;;
    --runs) runs=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    -*) echo "run-bare.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -eq 1 ] || { echo "usage: run-bare.sh [--clean] [--runs N] SUITE" >&2; exit 2; }
suite=${1%/}; suite=${suite##*/}
case $suite in
  rust-crate|cmake-project|npm-package|python-suite) ;;
  *) echo "run-bare.sh: no suite $suite (rust-crate, cmake-project, npm-package, python-suite)" >&2; exit 2 ;;
esac

times=() rc=0
for i in $(seq 1 "$runs"); do
  [ "$runs" -gt 1 ] && echo "=== $suite run $i/$runs"
  out=$(mktemp)
  set +e
  REAPCHECK_BARE_DIR=$here/$suite REAPCHECK_BARE_SUITE=$suite REAPCHECK_BARE_CLEAN=$clean \
    unshare --pid --fork --mount-proc --net bash "$here/run-bare.sh" --inside 2>&1 | tee "$out"
  st=${PIPESTATUS[0]}
  set -e
  [ "$st" -eq 0 ] || rc=$st
  times+=("$(awk '/^== wall_ms/ { print $3 }' "$out")")
  rm -f "$out"
done
if [ "$runs" -gt 1 ]; then
  echo "=== $suite wall_ms: ${times[*]}; median $(printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')"
fi
exit "$rc"
