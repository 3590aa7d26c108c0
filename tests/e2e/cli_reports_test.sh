#!/usr/bin/env bash
# End-to-end checks of the reports the reapcheck CLI writes: the JSON contract and JUnit, bytes
# that are not UTF-8 and control characters in every output, colour and where reports go (paths
# checked before anything runs, a late write failure), --shard and report --merge. One part per
# concern, each its own CTest test (cli/PART), so that CTest runs them side by side.
#   cli_reports_test.sh BUILD_BIN_DIR SOURCE_DIR json|bytes|output|merge
# shellcheck disable=SC2016 # jq's and perl's $names, in single quotes
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
. "$(dirname "$0")/lib/common.sh"
e2e_setup "$1" "$2"
part=$3

case "$part" in
  json)
    # The acceptance run and its JSON contract; its JUnit.
    run 0 "$bin" run --scenario setsid-escape --reaper pgroup --reaper ps-walk --reaper proc-pidfd \
      --json "$work/r.json" --junit "$work/j.xml"
    check "setsid-escape acceptance run exits 0" $?
    json_holds "$work/r.json" '
      (.cases | by(.reaper)) as $c
      | $c.pgroup as $p
      | must($p.verdict == "leak" and $p.expected == "leak"; "pgroup: \($p.verdict)/\($p.expected)")
      | $p.survivors[0] as $s
      | [$p.members[] | select(.role == "agent")][0] as $agent
      | must($s.role == "escaped" and ($s.argv | join(" ") | like("perl")); "survivor is not the escaped perl")
      | must($s.pgid != $agent.pgid; "escaped shares the agent pgid")
      | (["pid", "ppid", "pgid", "sid", "state", "role", "argv"] - ($s | keys)) as $lacks
      | must($lacks == []; "survivor lacks \($lacks | join(" "))")
      # ps-walk kills the escaped perl too, but its per-pid SIGTERM pass, after its own killpg, names
      # pids whose processes have died: the ledger shows the stray signal.
      | $c["ps-walk"] as $w
      | must($w.verdict == "stray-signal" and $w.survivors == []; "ps-walk: \($w.verdict)")
      | must(any($w.signals[]; .stray and .call == "kill"); "ps-walk: no stray record")
      | must($c["proc-pidfd"].verdict == "pass"; "proc-pidfd: \($c["proc-pidfd"].verdict)")
      | (["kill", "all_dead"] - ($p.timings_ms | keys)) as $lacks
      | must($lacks == []; "timings lack \($lacks | join(" "))")
      | must($p.bystanders_hit | type == "array"; "bystanders_hit missing")' 2>"$work/err"
    check "the JSON shows the pgroup leak with the escaped survivor" $?
    grep -q '<testsuite name="pgroup"' "$work/j.xml"
    check "JUnit has a suite per reaper" $?
    ;;
  bytes)
    # Bytes are bytes: a survivor whose argv is not UTF-8 is still listed (its bad bytes as \xNN), and
    # a reaper that writes binary to stderr but kills everything passes.
    mkdir -p "$work/bytes"
    # shellcheck disable=SC2016 # $0 is perl's, written as it is
    printf '%s\n' 'description = "an escaped member whose argv is not UTF-8"' '[tree]' \
      'role = "agent"' '[[tree.children]]' 'role = "binary"' 'setsid = true' \
      'exec = ["perl", "-e", "$0 = \"\\xff\\xfe name\"; sleep"]' >"$work/bytes/bytes.toml"
    run 1 "$bin" --scenarios "$work/bytes" run --reaper pgroup --json "$work/bytes.json"
    check "the leak of a survivor with a binary argv is reported" $?
    json_holds "$work/bytes.json" '
      .cases[0] as $c
      | must($c.verdict == "leak"; "verdict \($c.verdict)")
      | [$c.survivors[] | select(.role == "binary")][0] as $s
      | must($s != null; "survivor not listed")
      | must($s.argv[0] == "\\xFF\\xFE name"; "argv: \($s.argv | join(" "))")' 2>"$work/err"
    check "the survivor keeps its argv, bad bytes written \\xNN" $?
    run 0 "$bin" run --scenario plain-child --expect-pass \
      --reaper 'exec:printf "\377\376" >&2; kill -s KILL -- -{pgid}' --json "$work/stderr.json"
    check "a reaper that writes binary to stderr and kills everything passes" $?

    # Bytes that are not UTF-8 in an exec: reaper's command: every output stays well-formed, and
    # results.json keeps the exact bytes (in hex beside the readable form), through `report` too.
    run 1 "$bin" run --scenario plain-child --reaper $'exec:true \xff\xfe' --out "$work/bytes"
    check "a reaper command with bytes that are not UTF-8 runs" $?
    xmllint --noout "$work/bytes/junit.xml" 2>"$work/err" &&
      perl -MEncode -e 'for (@ARGV) { local $/; open my $f, "<:raw", $_ or die; my $t = <$f>;
        Encode::decode("UTF-8", $t, Encode::FB_CROAK) }' "$work/bytes/matrix.txt" "$work/bytes/matrix.html"
    check "junit.xml, matrix.txt and matrix.html are well-formed UTF-8 whatever the bytes" $?
    "$bin" report "$work/bytes/results.json" --json "$work/bytes/again.json" >/dev/null
    hex=$(printf 'exec:true \377\376' | od -An -tx1 | tr -d ' \n')
    kept=0
    for f in results.json again.json; do
      json_holds "$work/bytes/$f" \
        '.cases[0] | (.reaper_bytes | ascii_downcase) == $hex and .reaper == "exec:true \\xFF\\xFE"' \
        --arg hex "$hex" || kept=1
    done
    [ "$kept" -eq 0 ]
    check "results.json keeps the exact bytes of the command, through report too" $?

    # Control characters in what the user's files say (a scenario's description and tags, an
    # expectations reason) reach no report ill-formed and no terminal raw: written \xNN, as above.
    mkdir -p "$work/controls/expectations"
    printf '%s\n' 'description = "red \u001b[31m one \u0001 c1 \u009b not-xml \ufffe nul \u0000 after"' \
      'tags = ["ta\u001bg", "nul\u0000tag"]' '[tree]' 'role = "agent"' '[[tree.children]]' \
      'role = "escaped"' 'setsid = true' >"$work/controls/controls.toml"
    printf '%s\n' '[[known]]' 'verdict = "leak"' \
      'reason = "why \u001b[2J cleared \u0001 \u0000 cut"' 'scenarios = ["controls"]' \
      >"$work/controls/expectations/pgroup.toml"
    raw() { LC_ALL=C grep -q -P '[\x00-\x08\x0B-\x1F\x7F]|\xC2[\x80-\x9F]|\xEF\xBF[\xBE\xBF]' "$@"; }
    run 0 "$bin" --scenarios "$work/controls" list
    ! raw "$work/out" && grep -q 'red \\x1B\[31m' "$work/out"
    check "list writes a description's control characters \\xNN" $?
    run 1 "$bin" --scenarios "$work/controls" run --reaper pgroup --expect-pass --explain \
      --out "$work/controls/out"
    check "a scenario with control characters runs" $?
    ! raw "$work/out" && grep -q 'why \\x1B\[2J cleared \\x01 \\x00 cut' "$work/out"
    check "the deviation shows the description and the reason \\xNN, nothing raw" $?
    xmllint --noout "$work/controls/out/junit.xml" 2>"$work/err" &&
      ! raw "$work/controls/out/matrix.txt" "$work/controls/out/matrix.html" &&
      grep -q 'nul\\x00tag' "$work/controls/out/junit.xml" &&
      grep -q 'after' "$work/controls/out/junit.xml"
    check "junit.xml validates, matrix.txt and matrix.html hold no control character, NUL cuts nothing" $?
    ;;
  output)
    # Colour, and where reports go: paths checked before anything runs, a late write failure,
    # a pipe.
    run 0 "$bin" --color always run --scenario plain-child --reaper pgroup
    grep -q $'\x1b\[' "$work/out"
    check "--color always colours the matrix" $?
    run 0 env FORCE_COLOR=1 "$bin" run --scenario plain-child --reaper pgroup
    grep -q $'\x1b\[' "$work/out"
    check "FORCE_COLOR colours the matrix off a terminal" $?
    run 0 env FORCE_COLOR=1 NO_COLOR=1 "$bin" run --scenario plain-child --reaper pgroup
    ! grep -q $'\x1b' "$work/out"
    check "NO_COLOR wins over FORCE_COLOR" $?

    # Output paths are checked before anything runs: exit 2, no case run.
    run 2 "$bin" run --scenario plain-child --reaper pgroup --junit /proc/j.xml
    check "an unwritable --junit exits 2" $?
    grep -q "cannot write /proc/j.xml: .*nothing was run" "$work/err" && ! grep -q "^\[1/" "$work/err"
    check "an unwritable --junit runs nothing and says why" $?
    run 2 "$bin" run --scenario plain-child --reaper pgroup --json "$work/no/such/dir/r.json"
    grep -q "does not exist" "$work/err" && [ ! -d "$work/no" ]
    check "a missing folder for --json is not created" $?
    run 0 "$bin" run --scenario plain-child --reaper pgroup -q --out "$work/new/out"
    [ -s "$work/new/out/results.json" ] && [ -s "$work/new/out/matrix.html" ]
    check "--out creates the folder it names" $?
    # A write that fails after the run (here the reaper itself puts a folder where junit.xml goes):
    # the matrix is printed, the other files written, the failure named, exit 2, no temporary left.
    # The reaper writes on the host only in the folder handed to it.
    mkdir -m 1777 "$work/share"
    run 2 env REAPCHECK_SHARE="$work/share" "$bin" run --scenario plain-child \
      --reaper "exec:mkdir $work/share/late.xml; /bin/kill -KILL -- -{pgid}" \
      --junit "$work/share/late.xml" --json "$work/late.json"
    check "a report that cannot be written after the run exits 2" $?
    grep -q "plain-child" "$work/out" && [ -s "$work/late.json" ] &&
      grep -q "cannot write $work/share/late.xml" "$work/err" && [ ! -e "$work/share/late.xml.tmp" ]
    check "the matrix is printed, the other report kept, the failure named, nothing half-written" $?
    # A report path that is not a regular file or a new one (a FIFO with no reader, a device, a
    # folder, --out DIR's junit.xml a FIFO) is refused before any case runs, naming the path, and
    # is never opened: nothing blocks (SIGKILL after 30 s if something does).
    mkfifo "$work/pipe.json"
    mkdir -p "$work/fifo-out" && mkfifo "$work/fifo-out/junit.xml"
    refused() {  # refused PATH OPTION ARG
      run 2 timeout -s KILL 30 "$bin" run --scenario plain-child --reaper pgroup "$2" "$3"
      check "$2 $3 is refused with exit 2" $?
      grep -q "cannot write $1: is a .*regular file or a new one; nothing was run" "$work/err" &&
        ! grep -q "^\[1/" "$work/err"
      check "$2 $3: the path named, the reason said, no case run" $?
    }
    refused "$work/pipe.json" --json "$work/pipe.json"
    refused "$work/pipe.json" --junit "$work/pipe.json"
    refused "$work/fifo-out/junit.xml" --out "$work/fifo-out"
    refused /dev/null --json /dev/null
    [ -p "$work/pipe.json" ] && [ -p "$work/fifo-out/junit.xml" ]
    check "the FIFOs are left FIFOs" $?
    ;;
  merge)
    # Sharding and merging as a user runs them: --shard runs its slice, report --merge joins slices
    # and whole runs (exit 1 when a verdict changed between runs) and refuses an input given twice
    # (exit 2). Which cells a slice holds, the merge's plan order, repeat numbering and each
    # refusal's reason are unit tests (unit/Plan.*, unit/Merge.*).
    shard_args=(--scenario plain-child --scenario setsid-escape --reaper pgroup -q)
    run 0 "$bin" run "${shard_args[@]}" --json "$work/whole.json"
    check "the unsharded run meets its expectations" $?
    for k in 1 2; do
      run 0 "$bin" run "${shard_args[@]}" --shard "$k/2" --json "$work/shard$k.json"
      check "--shard $k/2 runs its slice" $?
    done
    run 0 "$bin" report --merge "$work/shard1.json" "$work/shard2.json" \
      --json "$work/merged.json" --junit "$work/merged.xml" --html "$work/merged.html"
    check "report --merge joins two slices" $?
    [ -s "$work/merged.xml" ] && [ -s "$work/merged.html" ] &&
      json_holds "$work/merged.json" '.cases | length == 2' &&
      json_holds "$work/shard1.json" '.cases | length == 1'
    check "each slice holds one case, the merge both, written to every report asked for" $?
    run 2 "$bin" report --merge "$work/shard1.json" "$work/shard1.json"
    grep -q "is in another slice too" "$work/err"
    check "merging a slice twice is refused" $?

    # Whole runs of one plan, merged, are its repeats: a verdict that changed between two runs
    # makes the cell inconsistent and fails the merge.
    "$bin" run "${shard_args[@]}" --json "$work/again.json" >/dev/null 2>&1
    run 0 "$bin" report --merge "$work/whole.json" "$work/again.json" --json "$work/repeats.json"
    check "two whole runs that agree merge as two repeats" $?
    grep -q '0 inconsistent across repeats' "$work/out"
    check "the merge of two whole runs that agree has no inconsistent cell" $?
    json "$work/again.json" \
      '(.cases[] | select(.scenario == "plain-child" and .reaper == "pgroup") | .verdict) = "leak"' \
      >"$work/changed.json"
    run 1 "$bin" report --merge "$work/whole.json" "$work/changed.json"
    grep -q '1 inconsistent across repeats' "$work/out"
    check "a verdict that changed between two whole runs is inconsistent" $?
    ;;
  *)
    echo "unknown part '$part'" >&2
    exit 2
    ;;
esac

echo "cli/$part: $passed passed, $failures failed"
[ "$failures" -eq 0 ]
