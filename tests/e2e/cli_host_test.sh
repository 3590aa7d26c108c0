#!/usr/bin/env bash
# End-to-end checks of the reapcheck CLI on the machine it runs on: what a run finds there (no
# perl, no namespaces, a long TMPDIR, a worktree path with shell syntax in it), `reproduce` in the
# sandbox and on the host, and an interrupted run: each leaves nothing behind. One part per
# concern, each its own CTest test (cli/PART), so that CTest runs them side by side.
#   cli_host_test.sh BUILD_BIN_DIR SOURCE_DIR environment|reproduce|interrupt
# shellcheck disable=SC2016 # jq's and perl's $names, in single quotes
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
. "$(dirname "$0")/lib/common.sh"
e2e_setup "$1" "$2"
part=$3

case "$part" in
  environment)
    # The machine a run finds: no perl, no namespaces, a long TMPDIR, a worktree path with
    # shell syntax in it.
    run 2 env PATH=/nonexistent "$bin" run --scenario plain-child
    check "missing perl exits 2" $?
    grep -q "perl is not installed" "$work/err"
    check "missing perl is named" $?

    # A machine that cannot create namespaces (here: root without capabilities) skips, with the
    # reason, and the skip code CTest understands.
    run 77 setpriv --bounding-set=-all --inh-caps=-all "$bin" run --scenario plain-child \
      --reaper pgroup --skip-exit-code 77
    check "no namespaces: skipped with exit 77" $?
    grep -q "this machine cannot create the sandbox's namespaces.*: plain-child × pgroup" "$work/out"
    check "the skip reason is printed" $?

    # A TMPDIR far longer than a Unix socket's path may be (a CI runner's): the case's sockets do not
    # live there. A fixture tree, a node package through npm, and a reaper that spawns without a PTY.
    long_tmp="$work/$(printf 't%.0s' {1..200})"
    mkdir -p "$long_tmp"
    run 0 env TMPDIR="$long_tmp" "$bin" run --scenario plain-child --scenario npm-dev-server \
      --reaper pgroup --reaper proc-pidfd --out "$work/long-tmp"
    check "a 200-character TMPDIR runs every case as declared" $?
    [ -z "$(ls -A "$long_tmp")" ]
    check "a run leaves nothing in its TMPDIR" $?

    # Placeholders are filled in shell-quoted: a worktree whose path holds a space, quotes, $ and
    # $(...) is one word to the command, and nothing in it runs.
    odd="$work/x y/\$(touch PWNED)'q"
    mkdir -p "$odd" "$work/cwd"
    (cd "$work/cwd" && env TMPDIR="$odd" "$bin" run --scenario plain-child \
      --reaper 'exec:test -d {worktree} && /bin/kill -KILL -- -{pgid}' >"$work/out" 2>"$work/err")
    check "a worktree path with a space, quotes and \$(...) reaches the command as one word" $?
    [ -z "$(find "$work" -name PWNED)" ]
    check "nothing in the worktree path ran" $?
    ;;
  reproduce)
    # The manual reproduction, in the sandbox and on the host; neither leaves anything running.
    run 0 "$bin" reproduce
    check "reproduce shows the npm dev-server leak" $?
    grep -q "^What escaped" "$work/out" && grep -q "watcher (pid [0-9]*): .*watcher.js" "$work/out" &&
      grep -q "localhost:41002 (watcher) answers, held by pid [0-9]* (watcher)" "$work/out"
    check "reproduce lists the watcher and its port" $?

    # It teaches: how the watcher escaped, why pgroup misses it, which reaper to try instead.
    grep -q "how: .*detached: true.*setsid()" "$work/out" && grep -q "^Why pgroup misses it" "$work/out" &&
      grep -q "Try it: reapcheck reproduce npm-dev-server --reaper [a-z]" "$work/out" &&
      grep -q "^What to change in your launcher" "$work/out"
    check "reproduce says how the watcher escaped, why, and what to try" $?

    # Several reapers on one scenario: what passed is what passed in this run, and the fix follows.
    run 0 "$bin" reproduce setsid-escape --reaper pgroup --reaper cgroup
    check "reproduce with two reapers" $?
    grep -qx "Passed in this run: cgroup" "$work/out" &&
      grep -q "^  - put the agent in a cgroup of its own" "$work/out"
    check "reproduce says what passed in this run and what to change" $?

    mkdir -p "$work/host"
    run 0 env TMPDIR="$work/host" "$bin" reproduce --no-sandbox
    check "reproduce --no-sandbox runs" $?
    grep -q "runs on THIS machine" "$work/err"
    check "reproduce --no-sandbox says what it will do" $?
    left=$(running_with "$work/host")
    [ -z "$left" ]
    check "reproduce --no-sandbox leaves nothing running ($left)" $?
    run 2 "$bin" reproduce pid-reuse --no-sandbox
    check "reproduce --no-sandbox refuses a PID race" $?
    # --keep leaves the survivor running in the worktree it keeps; the test then ends what it started.
    mkdir -p "$work/keep"
    run 0 env TMPDIR="$work/keep" "$bin" reproduce setsid-escape --no-sandbox --keep
    check "reproduce --no-sandbox --keep runs" $?
    kept=$(sed -n 's/^The worktree they ran in is kept: //p' "$work/out")
    left=$(sed -n 's/^Left running (--keep); end them with: kill -9 //p' "$work/out")
    [ -n "$kept" ] && [ -d "$kept" ] && [ -n "$left" ] && [ "$(readlink "/proc/${left%% *}/cwd")" = "$kept" ]
    check "--keep keeps the worktree the survivor runs in ($kept, pids $left)" $?
    # shellcheck disable=SC2086 # the pids, a word each
    [ -n "$left" ] && kill -9 $left
    ;;
  interrupt)
    # Ctrl-C mid-case: exit 130, the finished cases written, nothing left running, no scratch left.
    mkdir -p "$work/tmp"
    mkfifo "$work/progress"
    # What a killed run left: the run removes it and says so on stderr before any case's line.
    mkdir "$work/tmp/reapcheck-1-abcdef"
    # Two workers: the interrupt goes to reapcheck alone, which must pass it on to the worker. The
    # second reaper kills nothing and leaves a process of its own running, so its case watches the
    # tree for the whole settle period (60 s): it is still at work when the first case ends.
    TMPDIR="$work/tmp" "$bin" run -j 2 --scenario plain-child --reaper pgroup \
      --reaper 'exec:setsid sleep infinity </dev/null >/dev/null 2>&1 &' --expect-pass \
      --settle 60000 --json "$work/partial.json" --junit "$work/partial.xml" \
      2>"$work/progress" >/dev/null &
    reapcheck_pid=$!
    interrupt_at "[1/2] " "$reapcheck_pid" "$work/progress"
    [ "$status" -eq 130 ]
    check "an interrupted run exits 130 (after: $first; got $status)" $?
    json_holds "$work/partial.json" 'must(.cases | length == 1; "cases: \(.cases | length)")'
    check "the interrupted run wrote its finished case" $?
    json_holds "$work/partial.json" \
      'must(.incomplete and .never_run == 1; "incomplete: \(.incomplete), never_run: \(.never_run)")' &&
      xmllint --noout "$work/partial.xml" &&
      grep -q '<testcase classname="reapcheck" name="the whole run"' "$work/partial.xml" &&
      grep -q 'type="incomplete"' "$work/partial.xml" &&
      grep -q 'message="the run is incomplete: 1 of its 2 case(s) never ran' "$work/partial.xml"
    check "results.json says the interrupted run is incomplete, junit.xml has an error for it" $?
    left=$(running_with "$work/tmp")
    [ -z "$left" ]
    check "nothing from the interrupted run is left running ($left)" $?
    [ -z "$(ls -A "$work/tmp")" ]
    check "the interrupted run removed its scratch directory" $?
    ;;
  *)
    echo "unknown part '$part'" >&2
    exit 2
    ;;
esac

echo "cli/$part: $passed passed, $failures failed"
[ "$failures" -eq 0 ]
