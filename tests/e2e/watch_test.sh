#!/bin/bash
# `reapcheck watch -- CMD` on the real suites of tests/watch/ (a cargo crate, a CMake project, an
# npm package, a Python unittest suite), each copied to a scratch folder and built there: the
# leaking test and its escaped child named, the pkill -f test's hit on the look-alike, the clean
# tests clean and a clean-only run exiting 0; a test killing another test's process a hit; and
# watch's own input: exit codes, expectations, the decoy and the namesake.
#   watch_test.sh BUILD_BIN_DIR SOURCE_DIR rust|cmake|npm|python|cross|input
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
. "$(dirname "$0")/lib/common.sh" && e2e_setup "$1" "$2"
what=$3
suites=$src/tests/watch

# watch_suite NAME EXPECTED-STATUS CMD...: watch CMD in $work/NAME, results in $work/NAME.out/.
watch_suite() {
  local name=$1 want=$2
  shift 2
  run "$want" "$bin" watch --dir "$work/$name" --out "$work/$name.out" -- "$@"
}

# verdict REPORT TEST: the verdict of TEST's part.
verdict() { json "$1" ".cases | by(.scenario) | .[\"$2\"].verdict"; }

copy() { cp -r "$suites/$1" "$work/$1" && rm -rf "$work/$1/target" "$work/$1/build"; }

case $what in
  rust)
    command -v cargo >/dev/null || { echo "SKIP: no cargo (Debian package cargo)"; exit 77; }
    copy rust-crate
    (cd "$work/rust-crate" && cargo test --offline --no-run -q) >"$work/build.log" 2>&1
    check "the crate builds" $?
    (cd "$work/rust-crate" && watch_suite rust-crate 1 cargo test --offline)
    check "cargo test under watch: exit 1 (a leak and a hit)" $?
    r=$work/rust-crate.out/results.json
    grep -q "test result: ok" "$work/out"
    check "the suite's own output passed through" $?
    [ "$(verdict "$r" leaks_its_child)" = leak ]
    check "leaks_its_child: leak" $?
    json_holds "$r" '.cases | by(.scenario) | .leaks_its_child.survivors[0]
      | (.argv[0] == "perl") and (.escape | like("setsid"))
      and (.started_by[0] | like("^leaks_its_child-[0-9a-f]+ \\(pid"))'
    check "its perl child, escaped by setsid(), started by the test's binary" $?
    [ "$(verdict "$r" kills_by_folder)" = bystander-hit ]
    check "kills_by_folder: bystander-hit" $?
    json_holds "$r" '.cases | by(.scenario) | .kills_by_folder.signals
      | any(.sender.role == "pkill" and any(.reached[]; .role == "lookalike"))'
    check "its pkill -f of the folder reached the look-alike" $?
    [ "$(verdict "$r" kills_its_child)" = pass ] && [ "$(verdict "$r" command)" = pass ]
    check "kills_its_child and the command itself: pass" $?
    grep -q '<testcase[^>]*name="leaks_its_child' "$work/rust-crate.out/junit.xml"
    check "junit.xml: a testcase per test" $?
    (cd "$work/rust-crate" && watch_suite rust-crate 0 cargo test --offline --test kills_its_child)
    check "the clean test alone: exit 0" $?
    grep -q "nothing left running, nobody else signalled" "$work/out"
    check "... and says it is clean" $?
    ;;
  cmake)
    copy cmake-project
    cmake -S "$work/cmake-project" -B "$work/cmake-project/build" >"$work/build.log" 2>&1 &&
      cmake --build "$work/cmake-project/build" >>"$work/build.log" 2>&1
    check "the project builds" $?
    watch_suite cmake-project 1 ctest --test-dir build
    check "ctest under watch: exit 1 (a leak)" $?
    r=$work/cmake-project.out/results.json
    [ "$(verdict "$r" daemon)" = leak ] && [ "$(verdict "$r" clean)" = pass ]
    check "daemon: leak; clean: pass (the tests by their CTest names)" $?
    json_holds "$r" '.cases | by(.scenario) | .daemon.survivors[0].escape | like("double fork")'
    check "the daemon's escape: a double fork" $?
    watch_suite cmake-project 0 ctest --test-dir build -R '^clean$'
    check "the clean test alone: exit 0" $?
    ;;
  npm)
    copy npm-package
    watch_suite npm-package 1 npm test
    check "npm test under watch: exit 1 (a leak)" $?
    r=$work/npm-package.out/results.json
    [ "$(verdict "$r" test/server.test.js)" = leak ] && [ "$(verdict "$r" test/clean.test.js)" = pass ]
    check "test/server.test.js: leak; test/clean.test.js: pass" $?
    json_holds "$r" '.cases | by(.scenario) | .["test/server.test.js"]
      | (.open_ports | length == 1) and (.survivors[0].escape | like("setsid"))'
    check "the detached server: its own session, its port still listening" $?
    watch_suite npm-package 0 npm test -- test/clean.test.js
    check "the clean file alone: exit 0" $?
    ;;
  python)
    copy python-suite
    watch_suite python-suite 1 python3 -m unittest discover -s tests
    check "unittest under watch: exit 1 (a leak)" $?
    r=$work/python-suite.out/results.json
    json_holds "$r" '.cases | by(.scenario) | .command | (.verdict == "leak")
      and (.survivors[0].argv == ["sleep", "300"]) and (.survivors[0].escape | like("setsid"))'
    check "one process for every test: the leak is the command's, sleep 300 in a session of its own" $?
    watch_suite python-suite 0 python3 -m unittest discover -s tests -p test_clean.py
    check "the clean test alone: exit 0" $?
    ;;
  cross)
    copy cross-test
    cmake -S "$work/cross-test" -B "$work/cross-test/build" >"$work/build.log" 2>&1
    check "the project configures" $?
    watch_suite cross-test 1 ctest --test-dir build
    check "ctest under watch: exit 1 (a hit)" $?
    r=$work/cross-test.out/results.json
    [ "$(verdict "$r" stops)" = bystander-hit ] && [ "$(verdict "$r" starts)" = pass ]
    check "stops, which killed starts's sleep: bystander-hit; starts: pass (by CTest's names)" $?
    json_holds "$r" '.cases | by(.scenario) | .["stops"].signals
      | any(any(.reached[]; .kind == "bystander" and (.role | like("^starts.s sleep"))))'
    check "... the signal's target named as the other test's process" $?
    # holds and ends run one command: no CTest name for either, both sleeper.sh, told apart by
    # their processes.
    [ "$(verdict "$r" sleeper.sh)" = bystander-hit ]
    check "holds and ends, one command: sleeper.sh, bystander-hit (ends killed holds's sleep)" $?
    ;;
  input)
    mkdir "$work/p"
    run 2 "$bin" watch --dir "$work/p"
    check "no command: exit 2" $?
    grep -q "give the command after '--'" "$work/err"
    check "... saying how to give one" $?
    run 2 "$bin" watch --dir "$work/nowhere" -- true
    check "no such --dir: exit 2" $?
    run 3 "$bin" watch --dir "$work/p" -- sh -c 'echo from-the-command; exit 3'
    check "nothing found: the command's own status (3)" $?
    grep -q from-the-command "$work/out"
    check "... and its output" $?
    printf 'reaper = "suite"\n[[known]]\nverdict = "leak"\nscenarios = ["command"]\nreason = "a daemon left on purpose"\n' >"$work/known.toml"
    run 0 "$bin" watch --dir "$work/p" --expectations "$work/known.toml" -- sh -c 'setsid sleep 300 & exit 0'
    check "a declared leak: the command's status (0)" $?
    grep -q "leak (declared)" "$work/out"
    check "... and the leak said to be declared" $?
    sed 's/"command"/"gone_test"/' "$work/known.toml" >"$work/stale.toml"
    run 1 "$bin" watch --dir "$work/p" --expectations "$work/stale.toml" -- true
    check "a declaration for a test that never ran: exit 1" $?
    grep -q "stale declaration: .*stale.toml declares leak for 'gone_test'" "$work/err"
    check "... naming the file and the test" $?
    watch_suite p 1 sh -c 'sleep 0.1 & p=$!; wait $p; kill -TERM $p'
    check "a kill by a pid the command had reaped: exit 1" $?
    json_holds "$work/p.out/results.json" '.cases | by(.scenario) | .command
      | (.verdict == "bystander-hit")
      and any(.signals[]; any(.reached[]; .role == "decoy-on-a-freed-pid"))'
    check "... a hit on the decoy put on that pid, as a recycled pid would be" $?
    watch_suite p 1 sh -c 'pkill -x sh; exit 0'
    check "a kill by the command's own name: exit 1" $?
    json_holds "$work/p.out/results.json" '.cases | by(.scenario) | .command
      | (.verdict == "bystander-hit") and any(.bystanders_hit[]; .role == "namesake")'
    check "... a hit on the namesake, the bystander named as the command is" $?
    printf 'reaper = "suite"\n[[known]]\nverdict = "leek"\nscenarios = ["command"]\nreason = "x"\n' >"$work/bad.toml"
    run 2 "$bin" watch --dir "$work/p" --expectations "$work/bad.toml" -- sh -c 'echo ran'
    check "a malformed expectations file: exit 2" $?
    ! grep -q ran "$work/out" && grep -q "bad.toml:3" "$work/err"
    check "... naming its line, before the command runs" $?
    ;;
  *) echo "unknown part: $what" >&2 && exit 2 ;;
esac
[ -z "$(running_with "$work")" ]
check "nothing of the watched commands left on the host" $?
[ "$failures" -eq 0 ] || exit 1
echo "watch/$what: ok ($passed checks)"
