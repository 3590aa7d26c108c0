#!/usr/bin/env bash
# Your own tree: reapcheck judges the processes a project's own command starts, found by
# observation (the projects in tests/projects/ hold no reapcheck code), in the project's folder
# seen copy-on-write. Each part asserts the verdict per reaper, that the folder is byte-for-byte
# as it was, and that nothing the run started is left on the host.
#   own_tree_test.sh BUILD_BIN_DIR SOURCE_DIR node|vite|python|edges|input|gate|paths|graceful
set -uo pipefail
bin=$(cd "$1" && pwd)/reapcheck
src=$(cd "$2" && pwd)
what=$3
. "$(dirname "$0")/failures.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A copy of tests/projects/NAME in $work: what the test runs and checks.
project() {
  cp -a "$src/tests/projects/$1" "$work/$1"
  echo "$work/$1"
}

# Every file's path, size, mode, time and content hash: "as it was" means this is unchanged.
state() {
  (cd "$1" && find . -printf '%p %s %m %T@\n' | sort && find . -type f -exec sha256sum {} + | sort)
}

# Fails when a process on the host still names PATH in its argv (read with builtins only, so the
# check itself never matches).
nothing_left() {
  local f args
  for f in /proc/[0-9]*/cmdline; do
    mapfile -d '' args <"$f" 2>/dev/null || continue
    [[ "${args[*]}" == *"$1"* ]] && fail "left running on the host: ${f%/cmdline} ${args[*]}"
  done
}

# The verdict `reproduce` gave REAPER, from its summary.
verdict() {
  awk -v r="$2" '/^Summary of this run/ {s = 1; next} s && $1 == r {print $2; exit}' "$1"
}

expect_verdict() {  # FILE REAPER VERDICT
  local got
  got=$(verdict "$1" "$2")
  [ "$got" = "$3" ] || fail "$2: verdict '$got', expected '$3' (output: $1)"
}

expect_in() {  # FILE TEXT
  grep -qF -- "$2" "$1" || fail "'$2' not in $1"
}

# reproduce on PROJECT with ARGS...; output in $work/out, exit status in $rc; the folder checked.
reproduce() {
  local dir=$1
  shift
  local before
  before=$(state "$dir")
  (cd "$dir" && "$bin" reproduce "$@") >"$work/out" 2>&1
  rc=$?
  [ "$(state "$dir")" = "$before" ] || fail "$dir changed under reproduce $*"
  nothing_left "$dir"
  cat "$work/out"
}

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
  edges)
    dir=$(project node-watcher)
    # A command that exits at once: nothing to kill, said as such.
    reproduce "$dir" --reaper pgroup -- true
    expect_verdict "$work/out" pgroup setup-error
    expect_in "$work/out" "the command was not ready: the agent"
    expect_in "$work/out" "exited before it was ready (it ran $(type -P true))"
    # One that never becomes ready: the deadline, what was awaited, the processes seen.
    start=$(date +%s)
    reproduce "$dir" --reaper pgroup --ready-port 9 --ready-timeout 1500 -- \
      sh -c 'echo warming up; sleep 60 & sleep 60'
    expect_verdict "$work/out" pgroup setup-error
    expect_in "$work/out" "still waiting for port 9 to be listened on"
    expect_in "$work/out" "sleep (pid"
    expect_in "$work/out" "warming up"
    [ $(($(date +%s) - start)) -lt 30 ] || fail "the never-ready case was not bounded"
    # A program found in PATH under a home only its owner may enter ($work, mktemp's 0700), in a
    # folder others may ($work/tools, as ~/.pyenv is in /root): put back for the case, read-only,
    # it runs as the user's shell would run it.
    mkdir -p "$work/tools/bin"
    printf '#!/bin/sh\necho ready\nexec sleep 60\n' >"$work/tools/bin/shimmed-server"
    chmod 755 "$work/tools" "$work/tools/bin" "$work/tools/bin/shimmed-server"
    PATH="$work/tools/bin:$PATH" reproduce "$dir" --reaper cgroup --ready-log ready -- shimmed-server
    expect_verdict "$work/out" cgroup pass
    # A shell script that leaves a daemon with nohup and setsid, as deploy scripts do, and then
    # waits: ready by quiet alone (no condition given).
    reproduce "$dir" --reaper pgroup --reaper cgroup -- \
      sh -c 'nohup setsid sleep 300 >/dev/null 2>&1 & exec sleep 300'
    expect_verdict "$work/out" pgroup leak
    expect_verdict "$work/out" cgroup pass
    expect_in "$work/out" "sleep (pid"
    expect_in "$work/out" "how: left the agent's session"
    # One that needs a terminal: it runs under the reapers that spawn on a PTY (the seeds), and
    # under the others is a setup-error that shows its own complaint.
    # Anchored: on a PTY each line ends in a carriage return, which the match leaves out.
    reproduce "$dir" --reaper ps-walk --reaper proc-pidfd --ready-log '^on a terminal$' -- \
      sh -c 'if test -t 0; then echo on a terminal; exec sleep 60; fi; echo needs a terminal >&2; exit 3'
    expect_verdict "$work/out" ps-walk pass
    expect_verdict "$work/out" proc-pidfd setup-error
    expect_in "$work/out" "needs a terminal"
    # A child its parent never reaps is a zombie, dead: no member, and no reason to refuse the case.
    # (The parent reads its end of a pipe until the child, exiting, closes the other.)
    reproduce "$dir" --reaper cgroup --ready-log ready -- \
      perl -e '$| = 1; pipe(my $r, my $w); fork or exit 0; close $w; <$r>; print "ready\n"; sleep 60'
    expect_verdict "$work/out" cgroup pass
    # A detached child listening on 127.0.0.2: its port is found and audited as any other.
    reproduce "$dir" --reaper pgroup --ready-after 300 -- node -e "
      require('child_process').spawn(process.execPath, ['-e',
        \"require('http').createServer().listen(9101, '127.0.0.2')\"],
        {detached: true, stdio: 'ignore'}).unref();
      setInterval(() => {}, 1e6);"
    expect_verdict "$work/out" pgroup leak
    expect_in "$work/out" ":9101 (node -e) answers"
    ;;
  input)
    # Bad input: exit 2, what to write instead, nothing run.
    dir=$(project node-watcher)
    check_usage() {  # EXPECTED-TEXT ARGS...
      local want=$1
      shift
      (cd "$dir" && "$bin" reproduce "$@") >"$work/out" 2>&1
      local rc=$?
      [ "$rc" -eq 2 ] || fail "reproduce $*: exit $rc, expected 2"
      expect_in "$work/out" "$want"
      ! grep -q '^Reproducing' "$work/out" || fail "reproduce $*: ran something"
    }
    check_usage "--dir $work/nowhere: no such directory" --dir "$work/nowhere" -- true
    check_usage "'no-such-program' is not a program found in PATH" -- no-such-program
    check_usage "a command goes after '--': reapcheck reproduce --dir . -- npm run dev" \
      --dir . npm run dev
    check_usage "--ready-port: Value 0 not in range" --ready-port 0 -- true
    check_usage "is not a regular expression" --ready-log '(' -- true
    check_usage "excludes" --ready-port 4173 --ready-after 100 -- true
    check_usage "nothing after '--'" --
    check_usage "holds /tmp" --dir / -- true
    check_usage "--dir package.json: not a directory" --dir package.json -- true
    check_usage "to run the one in $dir, write ./server.js" -- server.js
    check_usage "'./server.js' is not executable (chmod +x)" -- ./server.js
    # A program found in PATH under a folder only its owner may enter, which cannot be put back
    # for the case (the version manager's own folder is 0700 too): the case would run another
    # one, or none. ($work is mktemp's 0700; own-tree/edges runs one that can be put back.)
    mkdir -p "$work/home/bin"
    printf '#!/bin/sh\nexec sleep 60\n' >"$work/home/bin/shimmed-server"
    chmod 755 "$work/home/bin/shimmed-server"
    chmod 700 "$work/home"
    PATH="$work/home/bin:$PATH" check_usage \
      "'shimmed-server' is $work/home/bin/shimmed-server in PATH, under $work/home, which lets only its owner in" \
      -- shimmed-server
    "$bin" run -- true >"$work/out" 2>&1
    [ $? -eq 2 ] || fail "run -- true: not a usage error"
    expect_in "$work/out" "only 'reproduce' takes a command after '--'"
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
    grep -q '"verdict": "leak"' "$work/fail/results.json" || fail "pgroup's gate is not a leak"
    # A reaper that kills nothing cannot pass a project's tree either.
    (cd "$dir" && "$bin" run --scenarios .reapcheck/ --reaper 'exec:true' --out "$work/none") \
      >"$work/out" 2>&1
    rc=$?
    [ "$rc" -eq 1 ] || { cat "$work/out"; fail "gate with exec:true: exit $rc, expected 1"; }
    grep -q '"verdict": "leak"' "$work/none/results.json" || fail "exec:true's gate is not a leak"
    [ "$(state "$dir")" = "$before" ] || fail "$dir changed under run"
    nothing_left "$dir"
    ;;
  graceful)
    # A server whose shutdown after SIGTERM keeps it busy 1.5 s, past the 1 s settle period (as
    # gunicorn's master takes 0.6-0.8 s, more under load): still running at the bound, it is
    # waited for and dies, so a reaper that sends SIGTERM and returns is late, never a leak by
    # the machine's load; the same server idle after SIGTERM is a leak that names --settle.
    dir=$(project node-watcher)
    reproduce "$dir" --reaper 'exec:kill -TERM {pid}' --ready-log ready -- perl -e '
      $| = 1;
      $SIG{TERM} = sub { my $end = time + 1.5; 1 while time < $end; exit 0 };
      print "ready\n";
      sleep 600 while 1;'
    expect_in "$work/out" "your-command × exec:kill -TERM {pid}: late — agent (pid"
    expect_in "$work/out" "alive when the reaper returned, died"
    reproduce "$dir" --reaper 'exec:kill -TERM {pid}' --ready-log ready -- perl -e '
      $| = 1; $SIG{TERM} = "IGNORE"; print "ready\n"; sleep 600 while 1;'
    expect_in "$work/out" "your-command × exec:kill -TERM {pid}: leak — agent (pid"
    expect_in "$work/out" "still alive at the settle bound (--settle)"
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
      grep -q '"verdict": "bystander-hit"' "$work/gate/results.json" ||
        fail "gate --scenarios $form: cmdline is not a bystander-hit: $(grep -m1 verdict "$work/gate/results.json")"
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
