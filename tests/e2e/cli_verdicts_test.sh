#!/usr/bin/env bash
# End-to-end checks of the verdicts the reapcheck CLI gives: its sensitivity to a known-bad
# reaper that passes, the PID-race and bystander evidence, pidns's grace period, a tree not intact
# when the reaper acts, a reaper that waits without spinning, the npm dev-server leak and its
# ports, how the kill is requested. One part per concern, each its own CTest test (cli/PART), so
# that CTest runs them side by side.
#   cli_verdicts_test.sh BUILD_BIN_DIR SOURCE_DIR sensitivity|races|pidns|setup-error|no-spin|npm|request
# shellcheck disable=SC2016 # jq's and perl's $names, in single quotes
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
. "$(dirname "$0")/lib/common.sh"
e2e_setup "$1" "$2"
part=$3

case "$part" in
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
  races)
    # Races and bystanders, as the issue's acceptance reads them.
    catalog
    run 0 "$bin" run --scenario pid-reuse --scenario pgid-reuse --scenario lookalike-argv \
      --scenario sibling-agent --json "$work/races.json"
    check "race and bystander scenarios meet their expectations" $?
    json_holds "$work/races.json" '
      (.cases | by("\(.scenario)/\(.reaper)")) as $c
      | $c["pid-reuse/ps-walk"] as $p
      | must($p.verdict == "bystander-hit"; "pid-reuse/ps-walk: \($p.verdict)")
      | [$p.members[] | select(.role == "victim")][0] as $victim
      | $p.bystanders_hit[0] as $hit
      | must($hit.pid == $victim.pid; "decoy pid \($hit.pid) != victim pid \($victim.pid)")
      | must($hit.signal | like("^SIG(TERM|KILL)$"); "decoy got \($hit.signal)")
      # The ledger names the sender: the reaper, by the pid of the victim, which the decoy then held.
      | [$p.signals[] | select(.hit_outside)] as $sent
      | must($sent != [] and $sent[0].target == "pid \($victim.pid)" and $sent[0].sender.kind == "reaper"
          and $sent[0].reached[0].role == "recycled-pid"; "no ledger record of the hit")
      | must($p.race.opened; "race not recorded as opened")
      | [$c | to_entries[] | select(.value.race) | .key as $k | .value.race
          | if .opened | not then "\($k): the race window did not open"
            elif .attempts >= 1 | not then "\($k): attempts \(.attempts)" else empty end] as $raced
      | must($raced == []; $raced | join("; "))
      | must($c["pid-reuse/proc-pidfd"].verdict == "pass"; "proc-pidfd on pid-reuse: \($c["pid-reuse/proc-pidfd"].verdict)")
      | $c["lookalike-argv/cmdline"].bystanders_hit[0] as $look
      | must($look.role == "lookalike" and $look.signal == "SIGKILL"; "lookalike not SIGKILLed by cmdline")
      | [$reapers | split(" ")[] | select($c["sibling-agent/\(.)"].bystanders_hit | length > 0)] as $by
      | must($by == []; "sibling hit by \($by | join(" "))")' \
      --arg reapers "${builtin[*]}" 2>"$work/err"
    check "the JSON shows the recycled pid SIGKILLed by ps-walk, the lookalike by cmdline, no sibling hit" $?
    ;;
  pidns)
    # pidns ends its grace period when the namespace has emptied: its init drops the SIGTERM it has
    # no handler for, so waiting for the init would spend the whole minute given here.
    run 0 "$bin" run --reaper pidns --scenario plain-child --scenario stopped-member --grace 60000 \
      --json "$work/pidns.json"
    check "pidns with a long grace meets its expectations" $?
    json_holds "$work/pidns.json" '
      reduce .cases[] as $c (.; ($c.reaper_steps | join(" | ")) as $steps
        | must($steps | like("all gone after"); "\($c.scenario): \($steps)")
        | must($c.timings_ms.kill < 60000; "\($c.scenario): kill took \($c.timings_ms.kill) ms"))' 2>"$work/err"
    check "pidns stops waiting once every process it SIGTERMed (a stopped one too) has exited" $?
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
    json_holds "$work/dying.json" '
      reduce .cases[] as $c (.; must($c.verdict == "setup-error" and ($c.reason | like("brief"));
        "run \($c.run): \($c.verdict)"))' 2>"$work/err"
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
    json_holds "$work/stuck.json" '
      reduce .cases[] as $c (.; $c.cpu_ms.reaper as $cpu | $c.timings_ms.kill as $wall
        | must($cpu != null; "\($c.reaper): no CPU figure")
        | must($wall > 100 and $cpu > 0.2 * $wall | not; "\($c.reaper): \($cpu) ms of CPU in a \($wall) ms kill"))' \
      2>"$work/err"
    check "the reaper waits without spinning (CPU under 20% of the kill)" $?
    json_holds "$work/stuck.json" '
      [.cases[] | select(.reaper != "cgroup") | .reaper_steps[]] as $froze
      | must(any($froze[]; like("^froze \\d+ members")); "no freeze reported")
      | must(any($froze[]; like("freeze gave up")) | not; "the freeze waited out its deadline: \($froze | join(" "))")' \
      2>"$work/err"
    check "the freeze sees the member held in vfork() and does not wait out its deadline" $?
    ;;
  npm)
    # The npm dev-server leak: pgroup leaves the detached watcher, its port still accepting.
    run 0 "$bin" run --scenario npm-dev-server --reaper pgroup --reaper proc-pidfd --json "$work/npm.json"
    check "npm-dev-server meets its expectations" $?
    json_holds "$work/npm.json" '
      (.cases | by(.reaper)) as $c
      | $c.pgroup.open_ports[0] as $port
      | must($port != null and $port.role == "watcher"; "no open port under pgroup")
      | [$c.pgroup.survivors[] | select(.role == "watcher")][0] as $watcher
      | must($watcher != null; "the watcher is not listed as survivor")
      | must($port.pid == $watcher.pid; "port held by \($port.pid), watcher is \($watcher.pid)")
      | must($c["proc-pidfd"].open_ports | length == 0; "proc-pidfd left ports open")' 2>"$work/err"
    check "pgroup leaves the watcher and its port; the port's holder is the watcher" $?

    # The restart check: a reaper that returns at once (a negative control that leaves the kill to a
    # helper 700 ms later) leaves both ports bound; binding them again right after it returned fails
    # with EADDRINUSE, and the evidence names the holder.
    run 1 "$bin" run --scenario npm-dev-server --expect-pass \
      --reaper "exec:sh $src/tests/controls/returns-early.sh {pid} {pgid} {grace_s}" --json "$work/rebind.json"
    check "a reaper that returns before the dev server is dead fails the run" $?
    json_holds "$work/rebind.json" '
      .cases[0] as $c | ($c.members | by(.role)) as $by_role | ($c.rebind_failures | by(.role)) as $failed
      | reduce ("server", "watcher") as $role (.; $failed[$role] as $f
        | must($f != null; "no rebind failure for \($role)")
        | must($f.error == "EADDRINUSE"; "\($role): \($f.error)")
        | must($f.holder == $by_role[$role].pid; "\($role): held by \($f.holder), not \($by_role[$role].pid)"))' \
      2>"$work/err"
    check "the restart check finds both ports still bound, by the server and the watcher" $?
    run 0 "$bin" run --scenario npm-dev-server --reaper cgroup --json "$work/rebind-ok.json"
    json_holds "$work/rebind-ok.json" \
      'must(.cases[0].rebind_failures | length == 0; "rebind failures under cgroup")' 2>"$work/err"
    check "cgroup, which waits for the tree to die, leaves the ports free to bind again" $?
    ;;
  request)
    # How the kill is requested, as the scenario's [case] says: the orchestrator SIGKILLed (only
    # what outlives it can act), the kill run by the agent on its own tree, a PATH without ps.
    run 0 "$bin" run --scenario supervisor-killed --reaper pgroup --reaper cgroup --reaper pidns \
      --json "$work/killed.json"
    check "supervisor-killed meets its expectations" $?
    json_holds "$work/killed.json" '
      (.cases | by(.reaper)) as $c
      | must($c.pgroup.verdict == "leak"; "pgroup: \($c.pgroup.verdict)")
      | ([$c.pgroup.survivors[].role] | join(" ")) as $left
      | must($left == "dev-server"; "pgroup left \($left)")
      | reduce ("pgroup", "cgroup", "pidns") as $id (.; ($c[$id].reaper_steps | join(" ")) as $steps
        | must($steps | like("^SIGKILL to the orchestrator"); "\($id): \($steps)")
        | must(any($c[$id].bystanders_hit[]; .role | like("^sibling")) | not; "\($id) ran no sibling"))' \
      2>"$work/err"
    check "SIGKILLing the orchestrator: pgroup leaves the escaped dev server, cgroup and pidns nothing" $?
    run 77 "$bin" run --scenario reaper-inside-tree --reaper pgroup --skip-exit-code 77
    check "a built-in reaper cannot run inside the tree: the case is skipped" $?
    grep -q "does not apply: the kill is run from inside the tree" "$work/out"
    check "the skip says why it does not apply" $?
    run 0 "$bin" run --scenario no-ps --reaper ps-walk --reaper cmdline --json "$work/nops.json"
    check "no-ps meets its expectations" $?
    json_holds "$work/nops.json" '
      (.cases | by(.reaper)) as $c
      | must($c["ps-walk"].reaper_steps[0] == "ps snapshot: 0 descendants";
          "ps-walk: \($c["ps-walk"].reaper_steps | join(" "))")
      | must($c.cmdline.verdict == "pass"; "cmdline: \($c.cmdline.verdict)")' 2>"$work/err"
    check "without ps on PATH, ps-walk's snapshot is empty; cmdline (pgrep) is unaffected" $?
    ;;
  *)
    echo "unknown part '$part'" >&2
    exit 2
    ;;
esac

echo "cli/$part: $passed passed, $failures failed"
[ "$failures" -eq 0 ]
