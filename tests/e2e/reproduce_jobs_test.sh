#!/usr/bin/env bash
# `reproduce` on a command of one's own as `run` runs a matrix: -j N reapers at once with run's
# progress lines, --out DIR's reports, a setup-error that shows the very end of what the command
# wrote, and a supervise: reaper whose supervisor was SIGKILLed at the end of the grace period
# saying so. Each part is its own CTest test (reproduce-jobs/PART); nothing is left running.
#   reproduce_jobs_test.sh BUILD_BIN_DIR SOURCE_DIR jobs|out|tail|supervise
set -uo pipefail
bin=$(cd "$1" && pwd)/reapcheck
src=$(cd "$2" && pwd)
what=$3
. "$(dirname "$0")/failures.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/app"
cp "$src/tests/projects/node-watcher/package.json" "$work/app/"

expect_in() {  # FILE TEXT
  grep -qF -- "$2" "$1" || fail "'$2' not in $1: $(head -c 3000 "$1")"
}

# Fails when a process on the host still names TEXT in its argv (read with builtins only, so the
# check itself never matches).
nothing_left() {
  local f args
  for f in /proc/[0-9]*/cmdline; do
    mapfile -d '' args 2>/dev/null <"$f" || continue  # (a process may end meanwhile)
    [[ "${args[*]}" == *"$1"* ]] && fail "left running on the host: ${f%/cmdline} ${args[*]}"
  done
}

# reproduce ARGS... in $work/app: stdout in $work/out, stderr in $work/err, exit status in $rc.
reproduce() {
  (cd "$work/app" && "$bin" reproduce "$@") >"$work/out" 2>"$work/err"
  rc=$?
  nothing_left "$work/app"
}

# A field of results.json: `json FILE PERL-EXPRESSION` prints what the expression gives for $r.
json() {
  perl -MJSON::PP -e 'my $r = decode_json(do { local $/; open my $f, "<", $ARGV[0] or die "$ARGV[0]: $!\n"; <$f> });
    print eval($ARGV[1]) // die "no value: $@\n"' "$1" "$2"
}

# Three reapers on a command that is ready 1.5 s after it starts: most of each case is waiting,
# so cases that run side by side overlap.
three_reapers() {
  # Ready once the escapee has left the group: it says so itself, after setsid().
  reproduce --reaper pgroup --reaper cgroup --reaper pidns "$@" --ready-log '^escaped$' -- \
    sh -c 'setsid sh -c "echo escaped; exec sleep 300" </dev/null & exec sleep 300'
}

case "$what" in
  jobs)
    # -j 2: two cases at once; the wall time is under the cases' sum (about 60% here: each case
    # waits for its agent's readiness, which no load serialises). -j 1: one after the other; the
    # wall time is about their sum. Both from results.json (--out). How much faster is measured
    # (docs/own-tree.md), not asserted.
    three_reapers -j 2 --out "$work/j2"
    [ "$rc" -eq 1 ] || fail "-j 2: exit $rc, expected 1 (pgroup leaks): $(cat "$work/err")"
    expect_in "$work/out" "with 3 reaper(s), 2 at a time, each in a sandbox of its own"
    sum=$(json "$work/j2/results.json" 'my $s = 0; $s += $_->{timings_ms}{case} for @{ $r->{cases} }; int($s)')
    wall=$(json "$work/j2/results.json" 'int($r->{wall_s} * 1000)')
    [ "$wall" -lt "$sum" ] ||
      fail "-j 2: the wall time ($wall ms) is not under the cases' sum ($sum ms): they did not overlap"
    # run's progress lines, one per case, numbered 1 to 3, each case once.
    grep -E '^\[[1-3]/3\] your-command × (pgroup|cgroup|pidns): [a-z-]+ \((ok|UNEXPECTED)\) [0-9]+ ms(; .*)?$' \
      "$work/err" >"$work/progress"
    [ "$(wc -l <"$work/progress")" -eq 3 ] || fail "-j 2: not 3 progress lines: $(cat "$work/err")"
    [ "$(cut -d' ' -f1 "$work/progress" | sort | tr -d '\n')" = "[1/3][2/3][3/3]" ] ||
      fail "-j 2: the progress lines do not count 1 to 3: $(cat "$work/progress")"
    [ "$(grep -c ' × pgroup: leak (UNEXPECTED)' "$work/progress")" -eq 1 ] ||
      fail "-j 2: pgroup's progress line is not its leak: $(cat "$work/progress")"
    # Every reaper's story once, and the summary in the order the reapers were given.
    for r in pgroup cgroup pidns; do
      [ "$(grep -cE "^your-command × $r: |^$r: pass — " "$work/out")" -eq 1 ] ||
        fail "-j 2: $r's story is not printed once"
    done
    [ "$(awk '/^Summary of this run/ {s = 1; next} s && NF == 0 {exit} s {print $1}' "$work/out" | tr '\n' ' ')" = "pgroup cgroup pidns " ] ||
      fail "-j 2: the summary is not in the reapers' order: $(cat "$work/out")"
    three_reapers -j 1 --out "$work/j1"
    [ "$rc" -eq 1 ] || fail "-j 1: exit $rc, expected 1"
    ! grep -q "at a time" "$work/out" || fail "-j 1 says it runs several at a time"
    sum=$(json "$work/j1/results.json" 'my $s = 0; $s += $_->{timings_ms}{case} for @{ $r->{cases} }; int($s)')
    wall=$(json "$work/j1/results.json" 'int($r->{wall_s} * 1000)')
    # (At least 90%: a case's sandbox may be made while the one before it ends.)
    [ "$wall" -ge $((sum * 90 / 100)) ] ||
      fail "-j 1: the wall time ($wall ms) is under 90% of the cases' sum ($sum ms): they overlapped"
    # A single reaper prints no progress line: its story is the only thing running.
    reproduce --reaper cgroup --ready-after 300 -- sleep 300
    [ "$rc" -eq 0 ] || fail "one reaper: exit $rc"
    ! grep -q '^\[1/1\]' "$work/err" || fail "one reaper printed a progress line"
    ;;
  out)
    # --out DIR: the reports run --out writes, their verdicts the ones printed; no journal left.
    three_reapers --out "$work/reports"
    [ "$rc" -eq 1 ] || fail "exit $rc, expected 1: $(cat "$work/err")"
    for f in results.json junit.xml matrix.txt matrix.html; do
      [ -s "$work/reports/$f" ] || fail "--out wrote no $f"
    done
    [ ! -e "$work/reports/journal.jsonl" ] || fail "the journal was left in --out DIR"
    [ "$(json "$work/reports/results.json" 'join " ", map { "$_->{reaper}=$_->{verdict}" } @{ $r->{cases} }')" \
      = "pgroup=leak cgroup=pass pidns=pass" ] ||
      fail "results.json's cases: $(json "$work/reports/results.json" 'join " ", map { "$_->{reaper}=$_->{verdict}" } @{ $r->{cases} }')"
    for r in pgroup cgroup pidns; do
      got=$(awk -v r="$r" '/^Summary of this run/ {s = 1; next} s && $1 == r {print $2; exit}' "$work/out")
      want=$(json "$work/reports/results.json" "join '', map { \$_->{verdict} } grep { \$_->{reaper} eq '$r' } @{ \$r->{cases} }")
      [ "$got" = "$want" ] || fail "$r: printed '$got', results.json '$want'"
    done
    grep -q '<testcase classname="pgroup" name="your-command"' "$work/reports/junit.xml" &&
      grep -q '<failure' "$work/reports/junit.xml" || fail "junit.xml has no failing pgroup case"
    grep -q 'your-command' "$work/reports/matrix.txt" || fail "matrix.txt has no your-command row"
    # A list cut short for the screen: with --out it names the results.json that is whole;
    # without, it says how to have one, and claims none.
    cmd='for i in 1 2 3 4 5 6 7 8 9 10; do setsid sleep 300 & done; exec sleep 300'
    reproduce --reaper pgroup --out "$work/wide" --ready-after 500 -- sh -c "$cmd"
    expect_in "$work/out" "… and 2 more ($work/wide/results.json lists all 10)"
    [ "$(json "$work/wide/results.json" 'scalar @{ $r->{cases}[0]{survivors} }')" -eq 10 ] ||
      fail "results.json does not list all 10 survivors"
    reproduce --reaper pgroup --ready-after 500 -- sh -c "$cmd"
    expect_in "$work/out" "… and 2 more, 10 in all (--out DIR writes every one to results.json)"
    ! grep -q "results.json lists" "$work/out" || fail "without --out, a report claims a results.json"
    # A path that cannot be written: exit 2 and nothing run.
    reproduce --reaper pgroup --out /proc/version -- sleep 300
    [ "$rc" -eq 2 ] || fail "--out /proc/version: exit $rc, expected 2"
    ! grep -q '^Reproducing' "$work/out" || fail "--out /proc/version: ran something"
    ;;
  tail)
    # A dev server that listens on another port than the one awaited: the setup-error shows the
    # end of what it wrote, its last line included, on the screen and in every report.
    cat >"$work/app/server.sh" <<'EOF'
#!/bin/sh
echo " * Serving Flask app 'app'"
echo " * Debug mode: off"
echo "WARNING: This is a development server. Do not use it in a production deployment. Use a production WSGI server instead." >&2
echo " * Running on http://127.0.0.1:5000" >&2
echo "Press CTRL+C to quit" >&2
exec sleep 300
EOF
    chmod +x "$work/app/server.sh"
    reproduce --reaper pgroup --ready-port 5001 --ready-timeout 1500 --out "$work/tail" -- ./server.sh
    [ "$rc" -eq 1 ] || fail "exit $rc, expected 1 (a setup-error): $(cat "$work/err")"
    expect_in "$work/out" "your-command × pgroup: setup-error — the command was not ready: it was still waiting for port 5001"
    expect_in "$work/out" "The end of its output"
    # The screen: the output's lines as written, in order, down to the last.
    sed -n '/^The end of its output$/,/^$/p' "$work/out" | sed '1d;/^$/d' >"$work/shown"
    printf '%s\n' "   * Serving Flask app 'app'" "   * Debug mode: off" \
      "  WARNING: This is a development server. Do not use it in a production deployment. Use a production WSGI server instead." \
      "   * Running on http://127.0.0.1:5000" "  Press CTRL+C to quit" >"$work/want"
    diff "$work/want" "$work/shown" >/dev/null || fail "the output shown is not its end: $(cat "$work/shown")"
    # The reports, narrower: JUnit's message and the matrix's reason end as the output did.
    grep -q 'message="[^"]*Running on http://127.0.0.1:5000&#10;Press CTRL+C to quit"' "$work/tail/junit.xml" ||
      grep -q 'message="[^"]*Running on http://127.0.0.1:5000.Press CTRL+C to quit"' "$work/tail/junit.xml" ||
      fail "junit.xml's message does not end with the output's end: $(grep -o 'message="[^"]*"' "$work/tail/junit.xml")"
    grep -q 'Press CTRL+C to quit' "$work/tail/matrix.txt" || fail "matrix.txt lost the output's end"
    ;;
  supervise)
    # A supervisor that ignores SIGTERM is SIGKILLed at the end of the grace period, and its
    # agent, orphaned, survives: the headline and the reason say which came first. One that
    # exits on SIGTERM leaves the same leak, and nothing of a SIGKILL is said.
    # (In the project's folder: the case sees it at its path, and not the rest of /tmp.)
    printf '#!/bin/sh\ntrap "" TERM\n"$@" &\nwait\n' >"$work/app/stubborn"
    printf '#!/bin/sh\ntrap "exit 0" TERM\n"$@" &\nwait\n' >"$work/app/quitter"
    chmod +x "$work/app/stubborn" "$work/app/quitter"
    reproduce --reaper "supervise:$work/app/stubborn" --grace 400 --ready-after 300 --out "$work/sup" \
      -- sleep 300
    [ "$rc" -eq 1 ] || fail "stubborn: exit $rc, expected 1: $(cat "$work/err")"
    said="the supervisor was SIGKILLed at the end of the 400 ms grace period (--grace)"
    headline=$(grep -m1 '^your-command × ' "$work/out")
    [[ "$headline" =~ ^"your-command × supervise:$work/app/stubborn: leak — agent (pid "[0-9]+", sleep 300) survived; $said"$ ]] ||
      fail "the headline does not say the supervisor was SIGKILLed: $headline"
    reason=$(json "$work/sup/results.json" '$r->{cases}[0]{reason}')
    [[ "$reason" == "$said; "* ]] || fail "the reason does not start with the SIGKILL: $reason"
    [ "$(json "$work/sup/results.json" '$r->{cases}[0]{reaper_outcome}{supervisor_killed_after_ms}')" -eq 400 ] ||
      fail "results.json does not hold the 400 ms the supervisor was given"
    grep -qF "$said" "$work/sup/junit.xml" || fail "junit.xml's failure does not say it"
    reproduce --reaper "supervise:$work/app/quitter" --grace 400 --ready-after 300 -- sleep 300
    [ "$rc" -eq 1 ] || fail "quitter: exit $rc, expected 1 (its agent is orphaned)"
    grep -qE "^your-command × supervise:.*quitter: leak — agent \(pid [0-9]+, sleep 300\) survived" "$work/out" ||
      fail "quitter: not a leak of its agent: $(grep -m1 '^your-command' "$work/out")"
    ! grep -q "SIGKILLed" "$work/out" || fail "quitter exited on SIGTERM, yet a SIGKILL is said"
    ;;
  *)
    echo "unknown part '$what'" >&2
    exit 2
    ;;
esac
[ "$failures" -eq 0 ] || exit 1
echo "reproduce-jobs/$what: ok"
