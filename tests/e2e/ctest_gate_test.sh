#!/usr/bin/env bash
# docs/gate.md's "Through CTest": -DREAPCHECK_GATE registers each scenario as gate/<scenario>
# (label gate) against that reaper, expecting pass; ctest --output-junit writes what it ran.
#   ctest_gate_test.sh BUILD_DIR SOURCE_DIR
# A second build tree is configured as the doc says. Its build step would compile the same
# programs as BUILD_DIR's: they are linked in from there instead (bin/ and share/), so the test
# takes seconds, not a build. A correct reaper (a kill of the agent's group) passes two scenarios
# that only need that; a reaper that kills nothing fails them.
set -uo pipefail
build=$1
src=$2
. "$(dirname "$0")/failures.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
generator=$(sed -n 's/^CMAKE_GENERATOR:INTERNAL=//p' "$build/CMakeCache.txt")

gate_tree() {  # gate_tree DIR REAPER: configured with the gate, the built programs linked in
  cmake -S "$src" -B "$1" -G "$generator" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DREAPCHECK_GATE="$2" >"$work/configure.log" 2>&1 || { sed 's/^/  /' "$work/configure.log"; return 1; }
  rm -rf "${1:?}/bin" "${1:?}/share"
  ln -s "$build/bin" "$1/bin" && ln -s "$build/share" "$1/share"
}

one_gate() {  # one_gate DIR: the doc's ctest line, on two scenarios
  (cd "$1" && ctest -L gate -R '^gate/(plain-child|grandchildren)$' --output-junit junit.xml \
    >"$work/ctest.log" 2>&1)
}

gate_tree "$work/good" 'exec:kill -KILL -{pgid}' || fail "cmake -DREAPCHECK_GATE='exec:...' configures"
listed=$(cd "$work/good" && ctest -N -L gate)
{ grep -q "gate/plain-child" <<<"$listed" && grep -q "gate/grandchildren" <<<"$listed"; } ||
  fail "each scenario is the test gate/<scenario>, label gate"
one_gate "$work/good" || { sed 's/^/  /' "$work/ctest.log"; fail "ctest -L gate passes a correct reaper"; }
junit=$(cat "$work/good/junit.xml")
{ grep -q 'testcase name="gate/plain-child"' <<<"$junit" &&
  grep -q 'testcase name="gate/grandchildren"' <<<"$junit" && grep -q 'failures="0"' <<<"$junit"; } ||
  fail "--output-junit writes both (with matrix/clean, which removes the tracing instance)"

gate_tree "$work/bad" 'exec:true' || fail "cmake configures the second gate"
if one_gate "$work/bad" || ! grep -q 'failures="2"' "$work/bad/junit.xml"; then
  fail "ctest -L gate fails a reaper that kills nothing, both tests"
fi
echo "ctest-gate: $failures failed"
[ "$failures" -eq 0 ]
