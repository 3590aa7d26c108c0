#!/usr/bin/env bash
# End-to-end checks of the reapcheck CLI as a user runs it: exit statuses, error messages,
# the harness's sensitivity to a known-bad reaper that passes, the JSON contract, and an
# interrupted run leaving nothing behind. One part per concern, each its own CTest test
# (cli/PART), so that CTest runs them side by side.
#   cli_test.sh BUILD_BIN_DIR SOURCE_DIR PART
set -uo pipefail
bin=$1/reapcheck
src=$2
part=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
passes=0

check() {  # check NAME CONDITION-EXIT-STATUS
  if [ "$2" -eq 0 ]; then
    passes=$((passes + 1))
  else
    failures=$((failures + 1))
    echo "FAIL: $1" >&2
    [ -f "$work/out" ] && sed 's/^/  out: /' "$work/out" >&2
    [ -f "$work/err" ] && sed 's/^/  err: /' "$work/err" >&2
  fi
}

run() {  # run EXPECTED-STATUS ARGS...; stdout in $work/out, stderr in $work/err
  local want=$1
  shift
  "$@" >"$work/out" 2>"$work/err"
  local got=$?
  [ "$got" -eq "$want" ] || echo "exit status $got, wanted $want" >>"$work/err"
  return $((got != want))
}

# The reaper ids and the presets, as the catalog lists them: nothing here names them by hand.
catalog() {
  "$bin" list --json >"$work/list.json"
  mapfile -t builtin < <(perl -MJSON::PP -e '
    my $l = decode_json(do { local $/; <STDIN> }); print "$_->{id}\n" for @{ $l->{reapers} }' <"$work/list.json")
  mapfile -t presets < <(perl -MJSON::PP -e '
    my $l = decode_json(do { local $/; <STDIN> }); print "$_->{id}\n" for @{ $l->{presets} }' <"$work/list.json")
}

case "$part" in
  list)
    # `list --json` and what completes from it: the catalog as a user and a shell see it.
    catalog
    [ "${#builtin[@]}" -ge 7 ] && [ "${#presets[@]}" -ge 1 ]
    check "list --json names the built-in reapers and the presets" $?
    perl -MJSON::PP -e '
      my $l = decode_json(do { local $/; <STDIN> });
      my %have = map { ($_->{id} => 1) } @{ $l->{scenarios} }, @{ $l->{presets} };
      my @want = qw(supervisor-killed agent-exited-first sigterm-ignorer-in-group blocked-sigterm
        stopped-job env-cleared-member nested-cgroups frozen-cgroup reaper-inside-tree no-ps busybox-ps
        terminate execa concurrently npm-run psutil python-killpg timeout-k supervisord s6
        session-kill unshare-kill-child bwrap-as-pid-1 catatonit-group dumb-init-child direct-child
        env-mark);
      my @missing = grep { !$have{$_} } @want;
      die "missing: @missing\n" if @missing;
      for my $p (@{ $l->{presets} }) { die "$p->{id} says nothing of what it needs\n" unless $p->{requires} }
    ' <"$work/list.json" 2>"$work/err"
    check "list --json shows the issue's scenarios and presets, each preset with what it needs" $?

    completion=$1/../share/bash-completion/completions/reapcheck
    bash -c '. "$1"; COMP_WORDS=(reapcheck run --reaper pg); COMP_CWORD=3; _reapcheck
      printf "%s\n" "${COMPREPLY[@]}"' _ "$completion" >"$work/out" 2>"$work/err"
    grep -qx pgroup "$work/out"
    check "bash completion offers the reaper ids" $?
    ;;
  input)
    # Bad input: exit 2 and a message that names what was wrong and what is valid; a bad file
    # that is not selected blocks nothing; "did you mean".
    catalog
    run 2 "$bin" run --reaper nope
    check "unknown reaper exits 2" $?
    valid=$(IFS=,; echo "${builtin[*]},${presets[*]}" | sed 's/,/, /g')
    grep -qF "unknown reaper 'nope' (valid: $valid, or exec:CMD / supervise:CMD)" "$work/err"
    check "unknown reaper lists the valid ones" $?

    run 2 "$bin" run --scenario nope
    check "unknown scenario exits 2" $?
    grep -q "unknown scenario 'nope' .*(scenarios in .*setsid-escape" "$work/err"
    check "unknown scenario lists the valid ones" $?

    mkdir -p "$work/bad"
    printf 'description = "x"\n[tree]\nrole = "agent"\nsetsd = true\n' >"$work/bad/typo.toml"
    run 2 "$bin" --scenarios "$work/bad" run --reaper pgroup
    check "a run that selects a malformed scenario exits 2" $?
    grep -q "typo.toml:4:1: unknown key 'setsd'" "$work/err"
    check "malformed scenario names file:line:col" $?
    # One bad file does not block the others: a run that does not select it goes on, and says so.
    cp "$src/scenarios/plain-child.toml" "$work/bad/"
    run 0 "$bin" --scenarios "$work/bad" run -q --scenario plain-child --reaper subreaper
    check "a bad file not selected does not block the run" $?
    grep -q "scenario 'typo' is left out: .*typo.toml:4:1" "$work/err"
    check "a bad file not selected is named on stderr" $?
    run 0 "$bin" --scenarios "$work/bad" list
    check "list shows the scenarios that parse" $?
    grep -q "plain-child" "$work/out" && grep -q "typo.toml:4:1" "$work/err"
    check "list names the bad file on stderr" $?

    run 2 "$bin" run --grace -5
    check "out-of-range option exits 2" $?

    mkdir -p "$work/bad-exp/expectations"
    cp "$src/scenarios/plain-child.toml" "$work/bad-exp/"
    printf '[[known]]\nverdict = "leak"\nreason = "r"\nscenarios = ["plain-chld"]\n' \
      >"$work/bad-exp/expectations/pgroup.toml"
    run 2 "$bin" --scenarios "$work/bad-exp" run --reaper pgroup
    check "malformed expectations exit 2" $?
    grep -q "expectations/pgroup.toml:4:14: unknown scenario 'plain-chld' (scenarios: plain-child)" \
      "$work/err"
    check "malformed expectations name file:line:col and the valid scenarios" $?

    # Special files named *.toml in a scenarios folder: each refused with its reason, none blocks or
    # is read without end, and a run that selects none of them runs.
    mkdir -p "$work/special"
    cp "$src/scenarios/plain-child.toml" "$work/special/"
    mkfifo "$work/special/fifo.toml"
    ln -s /dev/zero "$work/special/zero.toml"
    mkdir "$work/special/dir.toml"
    ln -s loop.toml "$work/special/loop.toml"
    run 0 timeout 60 "$bin" run --scenarios "$work/special" --scenario plain-child --reaper pidns
    check "a folder with a FIFO, a device, a directory and a loop named *.toml runs what it selects" $?
    grep -q "fifo.toml: not a regular file" "$work/err" && grep -q "zero.toml: not a regular file" "$work/err" &&
      grep -q "loop.toml: a loop of symbolic links" "$work/err"
    check "each special file is left out with its reason" $?
    run 2 timeout 60 "$bin" run --scenarios "$work/special" --scenario dir --reaper pidns
    grep -q "dir.toml: a directory, not a file" "$work/err"
    check "selecting a directory named *.toml is exit 2 with its own message" $?

    # A mistyped command, scenario or reaper gets its closest name.
    run 2 "$bin" rn
    check "a mistyped command exits 2" $?
    grep -qF "unknown command 'rn' (did you mean 'run'?)" "$work/err"
    check "a mistyped command gets a suggestion" $?
    run 2 "$bin" run --scenario setsid-escpe
    grep -qF "unknown scenario 'setsid-escpe' (did you mean 'setsid-escape'?)" "$work/err"
    check "a mistyped scenario gets a suggestion" $?
    run 2 "$bin" run --reaper pgrop
    grep -qF "unknown reaper 'pgrop' (did you mean 'pgroup'?)" "$work/err"
    check "a mistyped reaper gets a suggestion" $?

    run 2 "$bin" reproduce --settle 0
    grep -q -- "--settle: Value 0 not in range" "$work/err"
    check "reproduce checks --settle as run does" $?
    ;;
  usage)
    # The rough edges a new user meets first: every error is reapcheck's, names what was wrong
    # and, for a typo, the closest valid name; nothing reads as what it is not.
    run 2 "$bin" run --reapr pgroup
    grep -q "^reapcheck: .*--reapr (did you mean '--reaper'?)" "$work/err"
    check "a mistyped option: reapcheck's prefix and did-you-mean" $?
    run 2 "$bin" run --reapr=pgroup
    grep -q "^reapcheck: .*(did you mean '--reaper'?)" "$work/err"
    check "a mistyped option written --opt=VALUE gets did-you-mean too" $?
    run 2 "$bin" --colr never list
    grep -q "^reapcheck: unknown option '--colr' (did you mean '--color'?)" "$work/err"
    check "a mistyped global option is named, not taken for a command" $?
    run 0 "$bin" --colour never list
    grep -q "^  plain-child " "$work/out" && ! grep -q $'\x1b' "$work/out"
    check "--colour is --color" $?
    for spelling in --color --colour; do
      run 2 "$bin" "$spelling" nevr list
      grep -q "^reapcheck: --color: .*nevr" "$work/err" && ! grep -q "unknown command" "$work/err"
      check "$spelling with a bad value names the option and the value, not a command" $?
    done
    run 2 "$bin" reproduce --ready-port 0 -- true
    grep -q "^reapcheck: --ready-port: Value 0 not in range" "$work/err"
    check "a value out of range: reapcheck's prefix" $?
    run 2 "$bin" report
    grep -q "^reapcheck: report needs a results.json" "$work/err"
    check "report alone says what it needs, with reapcheck's prefix" $?
    # Every line of every error is reapcheck's (or CLI11's pointer to --help after one).
    bad=("" "rn" "run --scenario nope" "run --reaper nope" "run --grace -5" "run --shard 3/2"
      "report /nonexistent.json" "report --merge" "help nope" "list --nope" "run -q --explain"
      "reproduce -- " "list -- true")
    unprefixed=
    for args in "${bad[@]}"; do
      # shellcheck disable=SC2086 # each entry is a command line, split as a shell would
      run 2 "$bin" $args
      grep -v -e "^reapcheck: " -e "^Run with --help for more information.$" -e "^  " "$work/err" |
        grep -q . && unprefixed="$unprefixed [$args]"
    done
    [ -z "$unprefixed" ]
    check "every error is prefixed 'reapcheck:' (not:${unprefixed:- none})" $?
    rm -f "$work/out" "$work/err"

    # An exec: or supervise: reaper whose program cannot start is refused once, before any case
    # runs: exit 2, nothing on stdout.
    run 2 "$bin" run --scenario plain-child --reaper 'exec:no-such-killer {pid}'
    grep -q "^reapcheck: --reaper exec:no-such-killer {pid}: 'no-such-killer' is not a program found in PATH; nothing was run" "$work/err" &&
      ! grep -q . "$work/out"
    check "an exec: reaper's missing program is exit 2 before the first case" $?
    # The program in the folder the sandbox shares with the host (REAPCHECK_SHARE), where the
    # case can run it once it is executable.
    mkdir -m 1777 "$work/share"
    killer=$work/share/killer
    # shellcheck disable=SC2016 # $1 is the script's own argument
    printf '#!/bin/sh\nkill -9 -"$1"\n' >"$killer"
    chmod 644 "$killer"
    run 2 env REAPCHECK_SHARE="$work/share" "$bin" run --scenario plain-child --reaper "exec:$killer {pgid}"
    grep -q "^reapcheck: --reaper exec:$killer {pgid}: '$killer' is not an executable file; nothing was run" "$work/err" &&
      ! grep -q . "$work/out"
    check "an exec: reaper's program that is not executable is exit 2 before the first case" $?
    run 2 "$bin" run --scenario plain-child --reaper "supervise:$work exec {agent}"
    grep -q "'$work' is not an executable file; nothing was run" "$work/err"
    check "a supervise: reaper's program that is a directory is exit 2 before the first case" $?
    chmod 755 "$killer"
    run 0 env REAPCHECK_SHARE="$work/share" "$bin" run -q --scenario plain-child --reaper "exec:$killer {pgid}"
    check "the same program, executable, runs" $?
    run 0 "$bin" run -q --scenario plain-child --reaper 'exec:kill -9 -{pgid}'
    check "an exec: reaper that is a shell's own command runs (run --help's example)" $?
    ;;
  help)
    # --help and help CMD: exit statuses, examples, metavariables, the version.
    run 0 "$bin" --help
    check "--help exits 0" $?
    grep -q "Exit status" "$work/out"
    check "--help explains exit statuses" $?

    # Each command's --help ends with an example.
    for c in list run reproduce report bench clean help; do
      "$bin" "$c" --help | grep -q "^Examples\?:" || { echo "no example in $c --help"; false; } || break
    done
    check "every command's --help shows an example" $?

    run 0 "$bin" help run
    grep -q -- "--junit FILE" "$work/out" && grep -q -- "--out DIR" "$work/out" &&
      grep -q -- "--shard K/N" "$work/out"
    check "help run shows the options with FILE and DIR" $?
    run 0 "$bin" help
    grep -q "^Subcommands:" "$work/out" && grep -q -- "--scenarios DIR" "$work/out"
    check "help alone shows reapcheck's own help, not the help command's" $?
    differs=
    for cmd in list run report reproduce bench; do
      [ "$("$bin" help "$cmd")" = "$("$bin" "$cmd" --help)" ] || differs="$differs $cmd"
    done
    [ -z "$differs" ]
    check "help CMD prints what CMD --help prints (differs:${differs:- none})" $?

    run 0 "$bin" help report
    grep -qE "results FILE \.\.\." "$work/out" && ! grep -q "FILE:FILE" "$work/out"
    check "help report names its inputs FILE" $?
    run 0 "$bin" --version
    grep -qE "^reapcheck [0-9]+\.[0-9]+\.[0-9]+$" "$work/out"
    check "--version prints the version" $?
    ;;
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
  sensitivity)
    # Sensitivity: where pgroup's expectations declare no weakness and pgroup leaks, the run must
    # fail; and a declared weakness that does not happen must fail it too.
    mkdir -p "$work/sens"
    cp "$src/scenarios/setsid-escape.toml" "$work/sens/"
    run 1 "$bin" --scenarios "$work/sens" run --reaper pgroup
    check "an undeclared leak fails the run" $?
    grep -q "LEAK, expected pass" "$work/out"
    check "the matrix marks the surprise" $?
    grep -q "escaped (pid" "$work/out"
    check "the deviation names the survivor" $?

    rm "$work/sens"/*
    cp "$src/scenarios/sigterm-ignorer.toml" "$work/sens/"
    mkdir -p "$work/sens/expectations"
    printf '[[known]]\nverdict = "leak"\nreason = "claimed"\nscenarios = ["sigterm-ignorer"]\n' \
      >"$work/sens/expectations/pgroup.toml"
    run 1 "$bin" --scenarios "$work/sens" run --reaper pgroup
    check "a known-bad reaper that passes fails the run" $?
    grep -q "PASS, expected leak" "$work/out"
    check "the matrix marks the lost sensitivity" $?

    # External reapers. kill -9 -1 reaches everything the sandbox holds — the bystander in the reaper
    # host's group included — and nothing outside: a canary started here survives.
    sleep infinity &
    canary=$!
    run 1 "$bin" run --scenario plain-child --reaper 'exec:kill -9 -1'
    check "kill -9 -1 fails the run" $?
    grep -q "bystander-hit, expected pass" "$work/out" || grep -q "BYSTANDER-HIT, expected pass" "$work/out"
    check "kill -9 -1 is bystander-hit" $?
    kill -0 "$canary"
    check "the canary outside the sandbox is untouched" $?
    kill "$canary"
    wait "$canary" 2>/dev/null

    # The gate: a leaking reaper, named through @FILE as CMake passes it, with the survivors in the
    # JUnit failure text.
    printf '%s\n' 'exec:/bin/kill -TERM -- -{pgid}; true' >"$work/gate.txt"
    run 1 "$bin" run --scenario setsid-escape --reaper "@$work/gate.txt" --expect-pass \
      --junit "$work/gate.xml"
    check "a leaking gate fails" $?
    perl -0ne 'exit(m{<failure[^>]*>[^<]*escaped[^<]*</failure>}s ? 0 : 1)' "$work/gate.xml"
    check "the gate's JUnit failure text names the survivor" $?
    run 1 "$bin" run --scenario setsid-escape --reaper pgroup --expect-pass -q
    grep -q "why pgroup fails it: killpg" "$work/out"
    check "under --expect-pass a failure still gives the reason its expectations declare" $?
    run 1 "$bin" run --scenario plain-child --reaper 'exec:exit 3'
    check "a failing exec reaper fails the run" $?
    grep -q "exited with status 3" "$work/out"
    check "its exit status is reported" $?
    ;;
  json)
    # The acceptance run and its JSON contract, read with perl's core JSON::PP; its JUnit.
    run 0 "$bin" run --scenario setsid-escape --reaper pgroup --reaper ps-walk --reaper proc-pidfd \
      --json "$work/r.json" --junit "$work/j.xml"
    check "setsid-escape acceptance run exits 0" $?
    perl -MJSON::PP -e '
      my $r = decode_json(do { local $/; open my $f, "<", $ARGV[0] or die; <$f> });
      my %c = map { $_->{reaper} => $_ } @{ $r->{cases} };
      my $p = $c{pgroup};
      die "pgroup: $p->{verdict}/$p->{expected}\n" unless $p->{verdict} eq "leak" && $p->{expected} eq "leak";
      my ($s) = @{ $p->{survivors} };
      my ($agent) = grep { $_->{role} eq "agent" } @{ $p->{members} };
      die "survivor is not the escaped perl\n" unless $s->{role} eq "escaped" && "@{$s->{argv}}" =~ /perl/;
      die "escaped shares the agent pgid\n" if $s->{pgid} == $agent->{pgid};
      for my $k (qw(pid ppid pgid sid state role argv)) { die "survivor lacks $k\n" unless exists $s->{$k} }
      # ps-walk kills the escaped perl too, but its per-pid SIGTERM pass, after its own killpg, names
      # pids whose processes have died: the ledger shows the stray signal.
      my $w = $c{"ps-walk"};
      die "ps-walk: $w->{verdict}\n" unless $w->{verdict} eq "stray-signal" && !@{ $w->{survivors} };
      die "ps-walk: no stray record\n" unless grep { $_->{stray} && $_->{call} eq "kill" } @{ $w->{signals} };
      die "proc-pidfd: $c{q(proc-pidfd)}{verdict}\n" unless $c{"proc-pidfd"}{verdict} eq "pass";
      for my $k (qw(kill all_dead)) { die "timings lack $k\n" unless exists $p->{timings_ms}{$k} }
      die "bystanders_hit missing\n" unless ref $p->{bystanders_hit} eq "ARRAY";
    ' "$work/r.json" 2>"$work/err"
    check "the JSON shows the pgroup leak with the escaped survivor" $?
    grep -q '<testsuite name="pgroup"' "$work/j.xml"
    check "JUnit has a suite per reaper" $?
    ;;
  races)
    # Races and bystanders, as the issue's acceptance reads them.
    catalog
    run 0 "$bin" run --scenario pid-reuse --scenario pgid-reuse --scenario lookalike-argv \
      --scenario sibling-agent --json "$work/races.json"
    check "race and bystander scenarios meet their expectations" $?
    perl -MJSON::PP -e '
      my $r = decode_json(do { local $/; open my $f, "<", $ARGV[0] or die; <$f> });
      my %c = map { ("$_->{scenario}/$_->{reaper}" => $_) } @{ $r->{cases} };
      my $p = $c{"pid-reuse/ps-walk"};
      die "pid-reuse/ps-walk: $p->{verdict}\n" unless $p->{verdict} eq "bystander-hit";
      my ($victim) = grep { $_->{role} eq "victim" } @{ $p->{members} };
      my ($hit) = @{ $p->{bystanders_hit} };
      die "decoy pid $hit->{pid} != victim pid $victim->{pid}\n" unless $hit->{pid} == $victim->{pid};
      die "decoy got $hit->{signal}\n" unless $hit->{signal} =~ /^SIG(TERM|KILL)$/;
      # The ledger names the sender: the reaper, by the victim'"'"'s pid, which the decoy then held.
      my @sent = grep { $_->{hit_outside} } @{ $p->{signals} };
      die "no ledger record of the hit\n" unless @sent && $sent[0]{target} eq "pid $victim->{pid}"
        && $sent[0]{sender}{kind} eq "reaper" && $sent[0]{reached}[0]{role} eq "recycled-pid";
      die "race not recorded as opened\n" unless $p->{race}{opened};
      for my $k (keys %c) {
        next unless $c{$k}{race};
        die "$k: the race window did not open\n" unless $c{$k}{race}{opened};
        die "$k: attempts $c{$k}{race}{attempts}\n" unless $c{$k}{race}{attempts} >= 1;
      }
      die "proc-pidfd on pid-reuse: $c{q(pid-reuse/proc-pidfd)}{verdict}\n"
        unless $c{"pid-reuse/proc-pidfd"}{verdict} eq "pass";
      my ($look) = @{ $c{"lookalike-argv/cmdline"}{bystanders_hit} };
      die "lookalike not SIGKILLed by cmdline\n" unless $look->{role} eq "lookalike" && $look->{signal} eq "SIGKILL";
      for my $reaper (@ARGV[1..$#ARGV]) {
        die "sibling hit by $reaper\n" if @{ $c{"sibling-agent/$reaper"}{bystanders_hit} };
      }
    ' "$work/races.json" "${builtin[@]}" 2>"$work/err"
    check "the JSON shows the recycled pid SIGKILLed by ps-walk, the lookalike by cmdline, no sibling hit" $?
    ;;
  pidns)
    # pidns ends its grace period when the namespace has emptied: its init drops the SIGTERM it has
    # no handler for, so waiting for the init would spend the whole minute given here.
    run 0 "$bin" run --reaper pidns --scenario plain-child --scenario stopped-member --grace 60000 \
      --json "$work/pidns.json"
    check "pidns with a long grace meets its expectations" $?
    perl -MJSON::PP -e '
      my $r = decode_json(do { local $/; open my $f, "<", $ARGV[0] or die; <$f> });
      for my $c (@{ $r->{cases} }) {
        my $steps = join " | ", @{ $c->{reaper_steps} };
        die "$c->{scenario}: $steps\n" unless $steps =~ /all gone after/;
        die "$c->{scenario}: kill took $c->{timings_ms}{kill} ms\n" unless $c->{timings_ms}{kill} < 60000;
      }
    ' "$work/pidns.json" 2>"$work/err"
    check "pidns stops waiting once every process it SIGTERMed (a stopped one too) has exited" $?
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
    perl -MJSON::PP -e '
      my $r = decode_json(do { local $/; open my $f, "<", $ARGV[0] or die; <$f> });
      my $c = $r->{cases}[0];
      die "verdict $c->{verdict}\n" unless $c->{verdict} eq "leak";
      my ($s) = grep { $_->{role} eq "binary" } @{ $c->{survivors} };
      die "survivor not listed\n" unless $s;
      die "argv: @{ $s->{argv} }\n" unless $s->{argv}[0] eq "\\xFF\\xFE name";
    ' "$work/bytes.json" 2>"$work/err"
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
    for f in results.json again.json; do
      perl -MJSON::PP -e 'local $/; my $r = decode_json(<STDIN>); my $c = $r->{cases}[0];
        exit(pack("H*", $c->{reaper_bytes}) eq "exec:true \xff\xfe" && $c->{reaper} eq "exec:true \\xFF\\xFE" ? 0 : 1)' \
        <"$work/bytes/$f" || false
    done
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
  setup-error)
    # A tree that is not intact when the reaper acts gets no verdict: a member that exits on its own
    # right after it is announced (not declared transient) makes the case a setup-error — here under
    # a reaper that does nothing at all, which would otherwise pass whenever the member was quick.
    mkdir -p "$work/dying"
    printf 'description = "a member that exits right after it is announced"\n[tree]\nrole = "agent"\n[[tree.children]]\nrole = "brief"\nexec = ["true"]\n' \
      >"$work/dying/dying.toml"
    run 1 "$bin" --scenarios "$work/dying" run --reaper 'exec:true' --repeat 5 --json "$work/dying.json"
    check "a member gone before the kill fails the run" $?
    perl -MJSON::PP -e '
      my $r = decode_json(do { local $/; open my $f, "<", $ARGV[0] or die; <$f> });
      for my $c (@{ $r->{cases} }) {
        die "run $c->{run}: $c->{verdict}\n" unless $c->{verdict} eq "setup-error" && $c->{reason} =~ /brief/;
      }
    ' "$work/dying.json" 2>"$work/err"
    check "it is a setup-error naming the member, in every repeat" $?
    ;;
  no-spin)
    # A member waiting in vfork() cannot be stopped: SIGSTOP takes it only once its child execs
    # or exits. proc-pidfd's and subreaper's freeze must see it is held there (issue 41), not look
    # again until its own 5 s deadline; and whatever a reaper waits for, it waits without spinning.
    mkdir -p "$work/stuck"
    printf 'description = "a member waiting in vfork(): SIGSTOP cannot stop it"\n[tree]\nrole = "agent"\n[[tree.children]]\nrole = "stuck"\nvfork_hold = true\n' \
      >"$work/stuck/stuck.toml"
    run 0 "$bin" --scenarios "$work/stuck" run --reaper proc-pidfd --reaper subreaper --reaper cgroup \
      --json "$work/stuck.json"
    check "a member that cannot be stopped is still killed" $?
    perl -MJSON::PP -e '
      my $r = decode_json(do { local $/; open my $f, "<", $ARGV[0] or die; <$f> });
      for my $c (@{ $r->{cases} }) {
        my ($cpu, $wall) = ($c->{cpu_ms}{reaper}, $c->{timings_ms}{kill});
        die "$c->{reaper}: no CPU figure\n" unless defined $cpu;
        die "$c->{reaper}: $cpu ms of CPU in a $wall ms kill\n" if $wall > 100 && $cpu > 0.2 * $wall;
      }
    ' "$work/stuck.json" 2>"$work/err"
    check "the reaper waits without spinning (CPU under 20% of the kill)" $?
    perl -MJSON::PP -e '
      my $r = decode_json(do { local $/; open my $f, "<", $ARGV[0] or die; <$f> });
      my @froze = map { @{ $_->{reaper_steps} } } grep { $_->{reaper} ne "cgroup" } @{ $r->{cases} };
      die "no freeze reported\n" unless grep { /^froze \d+ members/ } @froze;
      die "the freeze waited out its deadline: @froze\n" if grep { /freeze gave up/ } @froze;
    ' "$work/stuck.json" 2>"$work/err"
    check "the freeze sees the member held in vfork() and does not wait out its deadline" $?
    ;;
  npm)
    # The npm dev-server leak: pgroup leaves the detached watcher, its port still accepting.
    run 0 "$bin" run --scenario npm-dev-server --reaper pgroup --reaper proc-pidfd --json "$work/npm.json"
    check "npm-dev-server meets its expectations" $?
    perl -MJSON::PP -e '
      my $r = decode_json(do { local $/; open my $f, "<", $ARGV[0] or die; <$f> });
      my %c = map { ($_->{reaper} => $_) } @{ $r->{cases} };
      my ($port) = @{ $c{pgroup}{open_ports} };
      die "no open port under pgroup\n" unless $port && $port->{role} eq "watcher";
      my ($watcher) = grep { $_->{role} eq "watcher" } @{ $c{pgroup}{survivors} };
      die "the watcher is not listed as survivor\n" unless $watcher;
      die "port held by $port->{pid}, watcher is $watcher->{pid}\n" unless $port->{pid} == $watcher->{pid};
      die "proc-pidfd left ports open\n" if @{ $c{"proc-pidfd"}{open_ports} };
    ' "$work/npm.json" 2>"$work/err"
    check "pgroup leaves the watcher and its port; the port's holder is the watcher" $?

    # The restart check: a reaper that returns at once (a negative control that leaves the kill to a
    # helper 700 ms later) leaves both ports bound; binding them again right after it returned fails
    # with EADDRINUSE, and the evidence names the holder.
    run 1 "$bin" run --scenario npm-dev-server --expect-pass \
      --reaper "exec:sh $src/tests/controls/returns-early.sh {pid} {pgid} {grace_s}" --json "$work/rebind.json"
    check "a reaper that returns before the dev server is dead fails the run" $?
    perl -MJSON::PP -e '
      my $r = decode_json(do { local $/; open my $f, "<", $ARGV[0] or die; <$f> });
      my ($c) = @{ $r->{cases} };
      my %by_role = map { ($_->{role} => $_) } @{ $c->{members} };
      my %failed = map { ($_->{role} => $_) } @{ $c->{rebind_failures} };
      for my $role (qw(server watcher)) {
        my $f = $failed{$role} or die "no rebind failure for $role\n";
        die "$role: $f->{error}\n" unless $f->{error} eq "EADDRINUSE";
        die "$role: held by $f->{holder}, not $by_role{$role}{pid}\n" unless $f->{holder} == $by_role{$role}{pid};
      }
    ' "$work/rebind.json" 2>"$work/err"
    check "the restart check finds both ports still bound, by the server and the watcher" $?
    run 0 "$bin" run --scenario npm-dev-server --reaper cgroup --json "$work/rebind-ok.json"
    perl -MJSON::PP -e '
      my $r = decode_json(do { local $/; open my $f, "<", $ARGV[0] or die; <$f> });
      die "rebind failures under cgroup\n" if @{ $r->{cases}[0]{rebind_failures} };
    ' "$work/rebind-ok.json" 2>"$work/err"
    check "cgroup, which waits for the tree to die, leaves the ports free to bind again" $?
    ;;
  request)
    # How the kill is requested, as the scenario's [case] says: the orchestrator SIGKILLed (only
    # what outlives it can act), the kill run by the agent on its own tree, a PATH without ps.
    run 0 "$bin" run --scenario supervisor-killed --reaper pgroup --reaper cgroup --reaper pidns \
      --json "$work/killed.json"
    check "supervisor-killed meets its expectations" $?
    perl -MJSON::PP -e '
      my $r = decode_json(do { local $/; open my $f, "<", $ARGV[0] or die; <$f> });
      my %c = map { ($_->{reaper} => $_) } @{ $r->{cases} };
      die "pgroup: $c{pgroup}{verdict}\n" unless $c{pgroup}{verdict} eq "leak";
      my @left = map { $_->{role} } @{ $c{pgroup}{survivors} };
      die "pgroup left @left\n" unless "@left" eq "dev-server";
      for my $id (qw(pgroup cgroup pidns)) {
        die "$id: @{ $c{$id}{reaper_steps} }\n"
          unless "@{ $c{$id}{reaper_steps} }" =~ /^SIGKILL to the orchestrator/;
        die "$id ran no sibling\n" if grep { $_->{role} =~ /^sibling/ } @{ $c{$id}{bystanders_hit} };
      }
    ' "$work/killed.json" 2>"$work/err"
    check "SIGKILLing the orchestrator: pgroup leaves the escaped dev server, cgroup and pidns nothing" $?
    run 77 "$bin" run --scenario reaper-inside-tree --reaper pgroup --skip-exit-code 77
    check "a built-in reaper cannot run inside the tree: the case is skipped" $?
    grep -q "does not apply: the kill is run from inside the tree" "$work/out"
    check "the skip says why it does not apply" $?
    run 0 "$bin" run --scenario no-ps --reaper ps-walk --reaper cmdline --json "$work/nops.json"
    check "no-ps meets its expectations" $?
    perl -MJSON::PP -e '
      my $r = decode_json(do { local $/; open my $f, "<", $ARGV[0] or die; <$f> });
      my %c = map { ($_->{reaper} => $_) } @{ $r->{cases} };
      die "ps-walk: @{ $c{q(ps-walk)}{reaper_steps} }\n"
        unless $c{"ps-walk"}{reaper_steps}[0] eq "ps snapshot: 0 descendants";
      die "cmdline: $c{cmdline}{verdict}\n" unless $c{cmdline}{verdict} eq "pass";
    ' "$work/nops.json" 2>"$work/err"
    check "without ps on PATH, ps-walk's snapshot is empty; cmdline (pgrep) is unaffected" $?
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
    left=$(grep -l -s "$work/hos[t]" /proc/[0-9]*/cmdline || true)
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
    [ -n "$left" ] && kill -9 $left
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
      [ "$(grep -c '"scenario":' "$work/merged.json")" -eq 2 ] &&
      [ "$(grep -c '"scenario":' "$work/shard1.json")" -eq 1 ]
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
    perl -MJSON::PP -e 'my $r = decode_json(do { local $/; <STDIN> });
      $_->{verdict} = "leak" for grep { $_->{scenario} eq "plain-child" && $_->{reaper} eq "pgroup" } @{ $r->{cases} };
      print encode_json($r)' <"$work/again.json" >"$work/changed.json"
    run 1 "$bin" report --merge "$work/whole.json" "$work/changed.json"
    grep -q '1 inconsistent across repeats' "$work/out"
    check "a verdict that changed between two whole runs is inconsistent" $?
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
    exec 3<"$work/progress"
    # Other lines come first (that note): wait for the first case's.
    first=
    while read -r line <&3; do
      case "$line" in "[1/2] "*) first=$line && break ;; esac
    done
    kill -INT "$reapcheck_pid"
    wait "$reapcheck_pid"
    status=$?
    exec 3<&-
    [ "$status" -eq 130 ]
    check "an interrupted run exits 130 (after: $first; got $status)" $?
    perl -MJSON::PP -e 'my $r = decode_json(do { local $/; open my $f, "<", $ARGV[0] or die; <$f> });
      die "cases: " . @{$r->{cases}} . "\n" unless @{ $r->{cases} } == 1' "$work/partial.json"
    check "the interrupted run wrote its finished case" $?
    perl -MJSON::PP -e 'my $r = decode_json(do { local $/; open my $f, "<", $ARGV[0] or die; <$f> });
      die "incomplete: $r->{incomplete}, never_run: $r->{never_run}\n"
        unless $r->{incomplete} && $r->{never_run} == 1' "$work/partial.json" &&
      xmllint --noout "$work/partial.xml" &&
      grep -q '<testcase classname="reapcheck" name="the whole run"' "$work/partial.xml" &&
      grep -q 'type="incomplete"' "$work/partial.xml" &&
      grep -q 'message="the run is incomplete: 1 of its 2 case(s) never ran' "$work/partial.xml"
    check "results.json says the interrupted run is incomplete, junit.xml has an error for it" $?
    # "tm[p]" keeps this grep from matching its own command line.
    left=$(grep -l -s "$work/tm[p]" /proc/[0-9]*/cmdline || true)
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

echo "cli/$part: $passes passed, $failures failed"
[ "$failures" -eq 0 ]
