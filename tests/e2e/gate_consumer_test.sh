#!/usr/bin/env bash
# tests/gate-consumer, a project that gates its own reaper (walk.sh, a group kill with a known
# leak declared in walk.toml) with reapcheck_add_gate() in its own CTest:
#   installed     reapcheck from `cmake --install` (find_package): green as declared; red on
#                 exactly the cells a broken reaper changes; red on a stale declaration, which
#                 its output names by file and line; the JUnit of `ctest --output-junit`
#                 carrying the evidence.
#   fetchcontent  reapcheck from its source (FetchContent, REAPCHECK_HARNESS ON): the same tests
#                 registered, green. Its build would compile the same programs as BUILD_DIR's:
#                 they are linked in from there instead (bin/), so the test takes seconds.
#   gate_consumer_test.sh BUILD_DIR SOURCE_DIR installed|fetchcontent
set -uo pipefail
build=$1
src=$2
part=$3
. "$(dirname "$0")/failures.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
consumer=$src/tests/gate-consumer
generator=$(sed -n 's/^CMAKE_GENERATOR:INTERNAL=//p' "$build/CMakeCache.txt")

configure() {  # configure DIR CMAKE-ARGS...
  local dir=$1
  shift
  cmake -S "$consumer" -B "$dir" -G "$generator" "$@" >"$work/configure.log" 2>&1 ||
    { sed 's/^/  /' "$work/configure.log"; return 1; }
}

gate() {  # gate DIR: the project's gate, its JUnit in DIR/junit.xml; ctest's status
  (cd "$1" && ctest -L reaper-gate -j 2 --output-on-failure --output-junit "$1/junit.xml" \
    >"$1/ctest.log" 2>&1)
}

failed() {  # failed DIR: the tests ctest says failed, sorted, one a line
  sed -n 's/^[[:space:]]*[0-9]* - \(walk\/[a-z-]*\) (Failed)$/\1/p' "$1/ctest.log" | sort
}

case "$part" in
  installed)
    cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" 2>&1 ||
      { sed 's/^/  /' "$work/install.log"; fail "cmake --install"; }
    configure "$work/good" -DCMAKE_PREFIX_PATH="$work/prefix" || fail "find_package(reapcheck) configures"
    listed=$(cd "$work/good" && ctest -N -L reaper-gate)
    for s in grandchildren plain-child setsid-escape; do
      grep -q "walk/$s\$" <<<"$listed" || fail "walk/$s is a test (label reaper-gate): $listed"
    done
    # docs/gate.md's two commands, by hand: the draft declares what the run saw, its reason to
    # write; refused until it is written; then the gate passes.
    by_hand() {  # by_hand OPTIONS...: reapcheck run of walk.sh on the project's scenarios
      (cd "$consumer" && "$work/prefix/bin/reapcheck" --scenarios scenarios run -q \
        --reaper 'walk=exec:./walk.sh {pgid}' "$@" >"$work/hand.log" 2>&1)
    }
    by_hand --write-expectations "$work/drafted.toml"
    [ $? -eq 1 ] && grep -q '^reaper = "walk"$' "$work/drafted.toml" &&
      grep -A4 'verdict = "leak"' "$work/drafted.toml" | grep -q '^reason = ""$' &&
      [ "$(sed -n '/^scenarios = \[/,/^]/p' "$work/drafted.toml")" = $'scenarios = [\n  "setsid-escape",\n]' ] ||
      { sed 's/^/  /' "$work/hand.log" "$work/drafted.toml"; fail "--write-expectations drafts setsid-escape's leak, its reason empty"; }
    by_hand --expectations "$work/drafted.toml"
    [ $? -eq 2 ] && grep -q "drafted.toml:[0-9]*:[0-9]*: a declared expectation needs its reason" "$work/hand.log" ||
      fail "an empty reason is refused, with its file and line"
    sed -i 's/^reason = ""$/reason = "a group kill misses setsid()"/' "$work/drafted.toml"
    by_hand --expectations "$work/drafted.toml" || fail "once written, the run passes as declared"
    configure "$work/builtin" -DCMAKE_PREFIX_PATH="$work/prefix" -DWALK_SCENARIOS= ||
      fail "configures on the built-in scenarios"
    builtin=$(ls "$src"/scenarios/*.toml | wc -l)
    grep -q "Total Tests: $builtin\$" <<<"$(cd "$work/builtin" && ctest -N)" ||
      fail "with no SCENARIOS, each of the $builtin installed scenarios is a test"
    gate "$work/good" || { sed 's/^/  /' "$work/good/ctest.log"; fail "the gate passes walk.sh with walk.toml"; }
    grep -q 'failures="0"' "$work/good/junit.xml" && grep -q 'setsid-escape' "$work/good/junit.xml" ||
      fail "ctest --output-junit writes the gate's three tests, none failed"

    # A reaper that kills nothing: plain-child and grandchildren now leak, setsid-escape still
    # leaks as declared.
    configure "$work/broken" -DCMAKE_PREFIX_PATH="$work/prefix" -DWALK_REAPER='exec:true' ||
      fail "configures with a broken reaper"
    gate "$work/broken" && fail "the gate passes a reaper that kills nothing"
    [ "$(failed "$work/broken")" = $'walk/grandchildren\nwalk/plain-child' ] ||
      fail "exactly the changed verdicts fail: $(failed "$work/broken")"
    grep -q 'survivors:' "$work/broken/junit.xml" ||
      fail "the JUnit carries the evidence (survivors) of a failing test"

    # A declaration that is stale: grandchildren declared to leak, and it passes.
    sed 's/  "setsid-escape",/  "setsid-escape",\n  "grandchildren",/' "$consumer/walk.toml" >"$work/stale.toml"
    configure "$work/stale" -DCMAKE_PREFIX_PATH="$work/prefix" -DWALK_EXPECTATIONS="$work/stale.toml" ||
      fail "configures with a stale expectations file"
    gate "$work/stale" && fail "the gate passes a stale declaration"
    [ "$(failed "$work/stale")" = "walk/grandchildren" ] ||
      fail "only the stale cell fails: $(failed "$work/stale")"
    # docs/gate.md shows the line, for walk.toml.
    shown=$(sed -n 's/^stale declaration: walk\.toml:/stale declaration: STALE:/p' "$src/docs/gate.md")
    [ -n "$shown" ] && grep -qF "${shown/STALE/$work/stale.toml}" "$work/stale/ctest.log" ||
      { sed 's/^/  /' "$work/stale/ctest.log"; fail "its output names the line to delete, as docs/gate.md shows: $shown"; }
    ;;
  fetchcontent)
    configure "$work/fetched" -DREAPCHECK_SOURCE="$src" -DCMAKE_BUILD_TYPE=RelWithDebInfo ||
      fail "FetchContent of reapcheck's source configures"
    rm -rf "$work/fetched/bin" && ln -s "$build/bin" "$work/fetched/bin"
    listed=$(cd "$work/fetched" && ctest -N -L reaper-gate)
    [ "$(grep -c 'walk/' <<<"$listed")" -eq 3 ] || fail "the three scenarios are tests: $listed"
    grep -q "Total Tests: 3" <<<"$(cd "$work/fetched" && ctest -N)" ||
      fail "reapcheck's own tests stay out of the project's CTest"
    gate "$work/fetched" || { sed 's/^/  /' "$work/fetched/ctest.log"; fail "the gate passes walk.sh with walk.toml"; }
    ;;
  *) fail "unknown part '$part'" ;;
esac
echo "gate-consumer/$part: $failures failed"
[ "$failures" -eq 0 ]
