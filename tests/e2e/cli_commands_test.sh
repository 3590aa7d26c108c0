#!/usr/bin/env bash
# End-to-end checks of the reapcheck CLI as a user types it: the catalog (`list --json`, bash
# completion), bad input (exit 2, what was wrong and what is valid, "did you mean"), the rough
# edges a new user meets first, --help and help CMD. One part per concern, each its own CTest
# test (cli/PART), so that CTest runs them side by side.
#   cli_commands_test.sh BUILD_BIN_DIR SOURCE_DIR list|input|usage|help
# shellcheck disable=SC2016 # jq's and perl's $names, in single quotes
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
. "$(dirname "$0")/lib/common.sh"
e2e_setup "$1" "$2"
part=$3

case "$part" in
  list)
    # `list --json` and what completes from it: the catalog as a user and a shell see it.
    catalog
    [ "${#builtin[@]}" -ge 7 ] && [ "${#presets[@]}" -ge 1 ]
    check "list --json names the built-in reapers and the presets" $?
    want=(supervisor-killed agent-exited-first sigterm-ignorer-in-group blocked-sigterm
      stopped-job env-cleared-member nested-cgroups frozen-cgroup reaper-inside-tree no-ps busybox-ps
      terminate execa concurrently npm-run psutil python-killpg timeout-k supervisord s6
      session-kill unshare-kill-child bwrap-as-pid-1 catatonit-group dumb-init-child direct-child
      env-mark)
    json_holds "$work/list.json" '
      (($want | split(" ")) - [.scenarios[].id, .presets[].id]) as $missing
      | must($missing == []; "missing: \($missing | join(" "))")
      | [.presets[] | select(.requires | IN(null, "", "0")) | .id] as $mute
      | must($mute == []; "\($mute | join(" ")) says nothing of what it needs")' \
      --arg want "${want[*]}" 2>"$work/err"
    check "list --json shows the issue's scenarios and presets, each preset with what it needs" $?

    completion=${bin%/*}/../share/bash-completion/completions/reapcheck
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
  *)
    echo "unknown part '$part'" >&2
    exit 2
    ;;
esac

echo "cli/$part: $passed passed, $failures failed"
[ "$failures" -eq 0 ]
