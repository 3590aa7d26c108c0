#!/usr/bin/env bash
# Your own tree: reapcheck judges the processes a project's own command starts, found by
# observation (the projects in tests/projects/ hold no reapcheck code), in the project's folder
# seen copy-on-write: the project's own command under reproduce, its scenario file as a gate,
# its folder given absolute or relative. Each part asserts the verdict per reaper, that the folder
# is byte-for-byte as it was, and that nothing the run started is left on the host. Commands of
# other kinds in a project's folder: own_tree_commands_test.sh.
#   own_tree_test.sh BUILD_BIN_DIR SOURCE_DIR node|vite|python|gate|paths
# shellcheck disable=SC2016 # jq's and perl's $names, in single quotes
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
. "$(dirname "$0")/lib/common.sh"
# shellcheck source-path=SCRIPTDIR source=lib/own_tree.sh
. "$(dirname "$0")/lib/own_tree.sh"
e2e_setup "$1" "$2"
what=$3

case "$what" in
  node)
    # npm run dev: a server on 4173 and a live-reload watcher on 35729 spawned detached. The
    # command is the README's, run on every built-in reaper.
    dir=$(project node-watcher)
    reproduce "$dir" --ready-port 4173 -- npm run dev
    [ "$rc" -eq 1 ] || fail "exit $rc, expected 1 (pgroup leaks)"
    expect_verdict "$work/out" pgroup leak
    expect_verdict "$work/out" cmdline bystander-hit
    for r in proc-pidfd subreaper cgroup pidns; do expect_verdict "$work/out" "$r" pass; done
    # docs/own-tree.md's sample, line by line, with numbers and the folder's path as written.
    norm() { sed -e "s|$dir|~/my-app|g" -e 's/[0-9][0-9]*/N/g'; }
    norm <"$work/out" >"$work/out.norm"
    sed -n '/own-tree\/node sample/,/^```$/p' "$src/docs/own-tree.md" | sed '1,2d;$d' | norm |
      while IFS= read -r line; do
        [ -z "$line" ] || grep -qxF -- "$line" "$work/out.norm" || echo "$line"
      done >"$work/drift"
    [ ! -s "$work/drift" ] || fail "docs/own-tree.md's sample drifted from the output: $(cat "$work/drift")"
    grep -q 'own-tree/node sample' "$src/docs/own-tree.md" || fail "docs/own-tree.md lost its sample"
    expect_in "$work/out" "node watcher.js (pid"
    expect_in "$work/out" "how: left the agent's session"
    expect_in "$work/out" "localhost:35729 (node watcher.js) answers"
    grep -q '^Passed in this run: .*cgroup' "$work/out" || fail "cgroup is not among the passed"
    grep -q '^  Kill the tree the way [a-z-]* does: ' "$work/out" || fail "no technique suggested"
    ;;
  vite)
    # A real Vite app whose dev script starts an asset watcher with setsid beside Vite: Vite and
    # its esbuild service die with the group, the watcher and its port outlive it.
    [ -d "$src/tests/projects/vite-app/node_modules" ] ||
      { echo "SKIP: tests/projects/vite-app has no node_modules: run scripts/setup.sh --tests"; exit 77; }
    dir=$(project vite-app)
    reproduce "$dir" --reaper pgroup --reaper cgroup --reaper pidns --ready-port 5173 -- npm run dev
    [ "$rc" -eq 1 ] || fail "exit $rc, expected 1 (pgroup leaks)"
    expect_verdict "$work/out" pgroup leak
    expect_verdict "$work/out" cgroup pass
    expect_verdict "$work/out" pidns pass
    expect_in "$work/out" "member node vite (pid"
    expect_in "$work/out" "node watch-assets.js (pid"
    expect_in "$work/out" "localhost:35730 (node watch-assets.js) answers"
    ;;
  python)
    # A server that starts a worker as a daemon (double fork, setsid, SIGTERM ignored); importing
    # worker.py makes python write __pycache__ into the folder, which must land in the overlay.
    # Debian's python3, whatever version manager this machine's PATH puts first (a 0700 one
    # would be refused, as own-tree/input shows).
    dir=$(project python-worker)
    PATH=/usr/bin:/bin reproduce "$dir" --reaper pgroup --reaper ps-walk --reaper cgroup --reaper pidns \
      --ready-log 'serving on' -- python3 server.py
    [ "$rc" -eq 1 ] || fail "exit $rc, expected 1"
    expect_verdict "$work/out" pgroup leak
    expect_verdict "$work/out" ps-walk leak
    expect_verdict "$work/out" cgroup pass
    expect_verdict "$work/out" pidns pass
    expect_in "$work/out" "python3 server.py (pid"
    expect_in "$work/out" "its parent exited and init adopted it"
    [ ! -e "$dir/__pycache__" ] || fail "__pycache__ was written into the project"
    ;;
  gate)
    # The project's scenario file gates in `reapcheck run --scenarios .reapcheck/`: the correct
    # reapers pass (exit 0); the group kill is caught leaking (exit 1).
    dir=$(project node-watcher)
    before=$(state "$dir")
    (cd "$dir" && "$bin" run --scenarios .reapcheck/ --reaper cgroup --reaper pidns \
      --out "$work/pass") >"$work/out" 2>&1
    rc=$?
    [ "$rc" -eq 0 ] || { cat "$work/out"; fail "gate with cgroup and pidns: exit $rc"; }
    (cd "$dir" && "$bin" run --scenarios .reapcheck/ --reaper pgroup --out "$work/fail") \
      >"$work/out" 2>&1
    rc=$?
    [ "$rc" -eq 1 ] || { cat "$work/out"; fail "gate with pgroup: exit $rc, expected 1"; }
    json_holds "$work/fail/results.json" 'any(.cases[]; .verdict == "leak")' ||
      fail "pgroup's gate is not a leak"
    # A reaper that kills nothing cannot pass a project's tree either.
    (cd "$dir" && "$bin" run --scenarios .reapcheck/ --reaper 'exec:true' --out "$work/none") \
      >"$work/out" 2>&1
    rc=$?
    [ "$rc" -eq 1 ] || { cat "$work/out"; fail "gate with exec:true: exit $rc, expected 1"; }
    json_holds "$work/none/results.json" 'any(.cases[]; .verdict == "leak")' ||
      fail "exec:true's gate is not a leak"
    [ "$(state "$dir")" = "$before" ] || fail "$dir changed under run"
    nothing_left "$dir"
    ;;
  paths)
    # A reaper that finds the tree by path (the second seed's pgrep -f <worktree>) meets the
    # project's folder in the look-alike's argv and the watcher's, never in reapcheck's own
    # processes: the same verdict whether the folder is given absolute or relative, under
    # reproduce and in the gate, and no signal to the case runner or the reaper host.
    dir=$(project node-watcher)
    no_harness_hit() {  # FILE
      ! grep -qE 'harness (case runner|reaper host)|(case runner|reaper host) got' "$1" ||
        fail "a harness process was signalled (its argv carried the folder): $(grep -m3 -E 'case runner|reaper host' "$1")"
    }
    for form in "$dir" "$(realpath --relative-to="$work" "$dir")"; do
      (cd "$work" && "$bin" reproduce --color never --dir "$form" --reaper cmdline \
        --ready-port 4173 -- npm run dev) >"$work/out" 2>&1
      expect_verdict "$work/out" cmdline bystander-hit
      expect_in "$work/out" "lookalike got SIGKILL from cmdline"
      no_harness_hit "$work/out"
      ! grep -q '^  node watcher.js (pid' "$work/out" || fail "--dir $form: the watcher, which cmdline kills, survived"
    done
    nothing_left "$dir"
    for form in "$dir/.reapcheck/" .reapcheck/; do
      rm -rf "$work/gate"
      (cd "$dir" && "$bin" run --color never --scenarios "$form" --reaper cmdline \
        --out "$work/gate") >"$work/out" 2>&1
      json_holds "$work/gate/results.json" 'any(.cases[]; .verdict == "bystander-hit")' ||
        fail "gate --scenarios $form: cmdline is not a bystander-hit: $(json "$work/gate/results.json" '[.cases[].verdict] | join(" ")')"
      grep -q 'bystander lookalike' "$work/out" || fail "gate --scenarios $form: no lookalike hit"
      no_harness_hit "$work/out"
    done
    nothing_left "$dir"
    ;;
  *)
    echo "unknown part '$what'" >&2
    exit 2
    ;;
esac
[ "$failures" -eq 0 ] || exit 1
echo "own-tree/$what: ok"
