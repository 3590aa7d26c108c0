#!/usr/bin/env bash
# End-to-end checks of what `reapcheck run` selects and how it flows: --scenario and --reaper
# globs, --tag, --fail-fast, --rerun-failed, Ctrl-C's partial matrix, and the progress lines'
# time left. One part per concern, each its own CTest test (cli/select-PART), so that CTest
# runs them side by side. The runs are of a folder of plain-child copies (tags of this test's
# own), so that no change to the built-in scenarios changes what is selected.
#   cli_select_test.sh BUILD_BIN_DIR SOURCE_DIR PART
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
. "$(dirname "$0")/lib/common.sh"
e2e_setup "$1" "$2"
part=${3#select-}  # its CTest test is cli/select-PART

# The cases of a results.json, one "scenario/reaper" a line, in its order.
cells() { json "$1" '.cases[] | "\(.scenario)/\(.reaper)"'; }

# A key of a results.json's top level.
field() { json "$1" ".$2"; }

# $work/s: plain-child (which proc-pidfd passes) under five names, each with tags of its own.
scenarios() {
  mkdir -p "$work/s"
  local id tags
  while read -r id tags; do
    sed "s/^tags = .*/tags = [$tags]/" "$src/scenarios/plain-child.toml" >"$work/s/$id.toml"
  done <<'EOF'
alpha-one "greek", "one"
alpha-two "greek", "two"
beta-one "greek", "one", "odd"
gamma "greek", "odd"
omega-one "last", "one"
EOF
}

# A reaper that kills nothing: plain-child's tree outlives it, a leak where pass is expected.
nothing='exec:true'
# A reaper that kills nothing and leaves a process of its own running, on a timer (it may still
# act): its case watches the tree for the whole settle period given (--settle 60000: a minute),
# still at work when the others end.
lingers='exec:setsid sh -c "while sleep 1; do :; done" </dev/null >/dev/null 2>&1 &'

case "$part" in
  glob)
    # --scenario and --reaper globs: matched in the order given, each once; a glob that matches
    # nothing is exit 2, named, with "did you mean" and the valid ids.
    scenarios
    run 0 "$bin" --scenarios "$work/s" run -q --settle 200 -j 2 --scenario 'beta-*' \
      --scenario '*-one' --scenario 'alpha-t?o' --scenario beta-one --reaper 'proc-pid[f]d' \
      --reaper proc-pidfd --json "$work/g.json"
    check "a run of globs exits 0" $?
    [ "$(cells "$work/g.json" | tr '\n' ' ')" = \
      "beta-one/proc-pidfd alpha-one/proc-pidfd omega-one/proc-pidfd alpha-two/proc-pidfd " ]
    check "globs select in the order given, a glob's matches in id order, each once ($(cells "$work/g.json" | tr '\n' ' '))" $?
    run 0 "$bin" --scenarios "$work/s" run -q --settle 200 -j 2 --scenario gamma \
      --reaper 'proc-*' --json "$work/r.json"
    check "a reaper glob runs" $?
    "$bin" list --json >"$work/list.json"
    mapfile -t proc < <(json "$work/list.json" '(.reapers + .presets)[].id | select(startswith("proc-")) | "gamma/\(.)"')
    [ "${#proc[@]}" -ge 1 ] && [ "$(cells "$work/r.json")" = "$(printf '%s\n' "${proc[@]}")" ]
    check "--reaper 'proc-*' runs each catalogue reaper whose id starts proc-, in catalogue order" $?

    run 2 "$bin" --scenarios "$work/s" run --scenario 'alpha-on?x'
    check "a scenario glob that matches nothing exits 2" $?
    grep -qF "reapcheck: --scenario 'alpha-on?x' matches no scenario (did you mean 'alpha-one'?) (scenarios in $work/s: alpha-one, alpha-two, beta-one, gamma, omega-one)" "$work/err"
    check "... naming the glob, the closest id and the valid ones" $?
    run 2 "$bin" run --reaper 'prco-*'
    check "a reaper glob that matches nothing exits 2" $?
    grep -qF "reapcheck: --reaper 'prco-*' matches no reaper (reapers: pgroup, " "$work/err"
    check "... naming the glob and the catalogue's ids" $?
    # A command is never a glob: its '*' and '?' are the shell's (here, in a comment).
    run 0 "$bin" --scenarios "$work/s" run -q --settle 200 -j 2 --scenario gamma \
      --reaper 'exec:kill -KILL -{pgid} # *' --reaper 'mine=exec:kill -KILL -{pgid} # ?' \
      --json "$work/c.json"
    check "exec: reapers with '*' and '?' run as commands, not globs" $?
    [ "$(cells "$work/c.json" | tr '\n' '|')" = \
      "gamma/exec:kill -KILL -{pgid} # *|gamma/mine=exec:kill -KILL -{pgid} # ?|" ]
    check "... as given" $?
    ;;
  tag)
    # --tag: the scenarios carrying any tag given; with --scenario, of those it names; an unknown
    # tag is exit 2 with the known ones.
    scenarios
    run 0 "$bin" --scenarios "$work/s" run -q --settle 200 -j 2 --tag odd --reaper proc-pidfd \
      --json "$work/t.json"
    check "a run of a tag exits 0" $?
    [ "$(cells "$work/t.json" | tr '\n' ' ')" = "beta-one/proc-pidfd gamma/proc-pidfd " ]
    check "--tag odd runs the scenarios tagged odd ($(cells "$work/t.json" | tr '\n' ' '))" $?
    run 0 "$bin" --scenarios "$work/s" run -q --settle 200 -j 2 --tag two --tag last \
      --scenario 'alpha-*' --scenario 'omega-*' --scenario gamma --reaper proc-pidfd \
      --json "$work/t2.json"
    check "--tag with --scenario exits 0" $?
    [ "$(cells "$work/t2.json" | tr '\n' ' ')" = "alpha-two/proc-pidfd omega-one/proc-pidfd " ]
    check "two tags with --scenario: the named scenarios carrying either ($(cells "$work/t2.json" | tr '\n' ' '))" $?
    run 2 "$bin" --scenarios "$work/s" run --tag ood
    check "an unknown tag exits 2" $?
    grep -qF "reapcheck: unknown tag 'ood' (did you mean 'odd'?) (tags of the scenarios in $work/s: greek, last, odd, one, two)" "$work/err"
    check "... listing the known tags" $?
    run 2 "$bin" --scenarios "$work/s" run --tag last --scenario 'alpha-*'
    check "a tag none of the named scenarios carries exits 2" $?
    grep -qF "no scenario that --scenario alpha-* names is tagged last" "$work/err"
    check "... and says so" $?
    ;;
  fail-fast)
    # --fail-fast: the first unexpected verdict stops the run; the case in progress (one that
    # would watch for a minute) is ended; the reports hold what finished and how many never ran.
    scenarios
    mkdir -p "$work/tmp"
    start=$(date +%s)
    run 1 env TMPDIR="$work/tmp" "$bin" --scenarios "$work/s" run -j 2 --settle 60000 \
      --scenario gamma --scenario beta-one --reaper "$nothing" --reaper "$lingers" --fail-fast \
      --out "$work/ff"
    check "a run --fail-fast stopped exits 1" $?
    took=$(($(date +%s) - start))
    [ "$took" -lt 45 ]
    check "the case in progress was ended, not waited for (${took}s)" $?
    [ "$(cells "$work/ff/results.json")" = "gamma/$nothing" ] &&
      [ "$(field "$work/ff/results.json" never_run)" = 3 ] &&
      [ "$(field "$work/ff/results.json" incomplete)" = true ] &&
      grep -qF "\"stopped\": \"--fail-fast stopped it at gamma × $nothing: leak, expected pass\"" \
        "$work/ff/results.json"
    check "results.json holds the failed case, 3 never run, and where it stopped" $?
    want="INCOMPLETE: the run is incomplete: 3 of its 4 case(s) never ran (--fail-fast stopped it at gamma × $nothing: leak, expected pass)"
    grep -qF "$want" "$work/out" && grep -qF "$want" "$work/ff/matrix.txt"
    check "the summary says the run stopped there and how many never ran" $?
    grep -q "^gamma .* leak" "$work/out"
    check "the matrix of what finished is printed" $?
    left=$(grep -l -s "$work/tm[p]" /proc/[0-9]*/cmdline || true)
    [ -z "$left" ] && [ -z "$(ls -A "$work/tmp")" ]
    check "nothing of the ended case is left running or on disk ($left)" $?

    # Without --fail-fast the same plan runs whole (a shorter settle: the lingering reaper's case
    # then ends sooner).
    run 1 "$bin" --scenarios "$work/s" run -q -j 2 --settle 300 --scenario gamma \
      --scenario beta-one --reaper "$nothing" --json "$work/whole.json"
    check "without --fail-fast a failing run exits 1" $?
    [ "$(cells "$work/whole.json" | wc -l)" -eq 2 ] && [ "$(field "$work/whole.json" never_run)" = 0 ]
    check "... and runs every case" $?
    # Every verdict as expected: --fail-fast stops nothing.
    run 0 "$bin" --scenarios "$work/s" run -q -j 2 --settle 200 --tag one --reaper proc-pidfd \
      --fail-fast --json "$work/ok.json"
    check "a run --fail-fast that meets every expectation exits 0" $?
    [ "$(cells "$work/ok.json" | wc -l)" -eq 3 ]
    check "... having run every case" $?
    ;;
  rerun)
    # --rerun-failed DIR: only the cells that failed there; nothing failed: said, nothing run,
    # exit 0; no results.json in DIR: exit 2 naming it.
    scenarios
    run 1 "$bin" --scenarios "$work/s" run -q -j 2 --settle 200 --tag one \
      --reaper proc-pidfd --reaper "$nothing" --out "$work/first"
    check "a first run with failures exits 1" $?
    run 1 "$bin" --scenarios "$work/s" run -q -j 2 --settle 200 --rerun-failed "$work/first" \
      --out "$work/again"
    check "--rerun-failed runs the failed cells again, and they fail again (exit 1)" $?
    [ "$(cells "$work/again/results.json" | tr '\n' ' ')" = \
      "alpha-one/$nothing beta-one/$nothing omega-one/$nothing " ]
    check "--rerun-failed runs only the cells that failed ($(cells "$work/again/results.json" | tr '\n' ' '))" $?
    run 1 "$bin" --scenarios "$work/s" run -q -j 2 --settle 200 --rerun-failed "$work/first" \
      --scenario 'beta-*' --json "$work/beta.json"
    check "--rerun-failed with --scenario exits 1" $?
    [ "$(cells "$work/beta.json")" = "beta-one/$nothing" ]
    check "--rerun-failed with --scenario: the failed cells of the scenarios named" $?
    run 2 "$bin" --scenarios "$work/s" run --rerun-failed "$work/first" --reaper proc-pidfd
    check "--rerun-failed with a --reaper that failed nowhere exits 2" $?
    grep -qF "none of the 3 cell(s) that failed there" "$work/err"
    check "... saying so" $?

    run 0 "$bin" --scenarios "$work/s" run -q --settle 200 --scenario gamma --reaper proc-pidfd \
      --out "$work/passed"
    check "a run that passes exits 0" $?
    run 0 "$bin" --scenarios "$work/s" run --rerun-failed "$work/passed" --out "$work/none"
    check "--rerun-failed where nothing failed exits 0" $?
    grep -qF "nothing failed in $work/passed/results.json (1 case(s)); nothing was run" "$work/out" &&
      [ ! -e "$work/none" ]
    check "... says so and runs nothing" $?
    mkdir "$work/empty"
    run 2 "$bin" run --rerun-failed "$work/empty"
    check "--rerun-failed DIR without results.json exits 2" $?
    grep -qF "reapcheck: --rerun-failed $work/empty: no results file $work/empty/results.json there" "$work/err"
    check "... naming the path" $?
    ;;
  interrupt)
    # Ctrl-C once a first case has finished: the partial matrix and the summary with the count
    # never run are printed, the reports written, exit 130.
    scenarios
    mkfifo "$work/progress"
    # Two workers; the second case lingers for its minute, still at work when the first ends.
    "$bin" --scenarios "$work/s" run -j 2 --settle 60000 --scenario gamma --scenario beta-one \
      --reaper proc-pidfd --reaper "$lingers" --out "$work/int" 2>"$work/progress" >"$work/out" &
    reapcheck_pid=$!
    interrupt_at "[1/4] " "$reapcheck_pid" "$work/progress"
    [ "$status" -eq 130 ]
    check "an interrupted run exits 130 (after: $first; got $status)" $?
    grep -q "^scenario  *proc-pidfd" "$work/out" && grep -q "^gamma  *pass" "$work/out"
    check "the interrupted run prints the matrix of what finished" $?
    never=$(field "$work/int/results.json" never_run)
    summary="INCOMPLETE: the run is incomplete: $never of its 4 case(s) never ran (interrupted by SIGINT)"
    [ "$never" -ge 2 ] && grep -qxF "$summary" "$work/out"
    check "... and the summary with how many never ran, as results.json counts them ($never)" $?
    [ "$(cells "$work/int/results.json" | wc -l)" -eq $((4 - never)) ] &&
      grep -qxF "$summary" "$work/int/matrix.txt" &&
      grep -qF '"stopped": "interrupted by SIGINT"' "$work/int/results.json"
    check "results.json and matrix.txt hold the same partial run" $?
    ;;
  progress)
    # Without a terminal, one line per case: its time, the run's elapsed time and, but on the
    # last, an estimate of the time left.
    scenarios
    run 0 "$bin" --scenarios "$work/s" run -j 1 --settle 200 --tag greek --reaper proc-pidfd
    check "a run of four cases exits 0" $?
    grep -cE '^\[[1-3]/4\] .* \(ok\) [0-9]+ ms; [0-9]+s elapsed, ~([0-9]+s|[0-9]+m[0-9]{2}s) left$' "$work/err" | grep -qx 3
    check "each line but the last says the time left" $?
    grep -qE '^\[4/4\] .* \(ok\) [0-9]+ ms; [0-9]+s elapsed$' "$work/err"
    check "the last line says none" $?
    run 0 "$bin" --scenarios "$work/s" run -q -j 1 --settle 200 --tag greek --reaper proc-pidfd
    [ ! -s "$work/err" ]
    check "-q prints no progress" $?
    ;;
  *)
    echo "unknown part '$part'" >&2
    exit 2
    ;;
esac

echo "cli/select-$part: $passed passed, $failures failed"
[ "$failures" -eq 0 ]
