#!/usr/bin/env bash
# Your own tree, the commands a user may give reproduce in a project's folder beside its own:
# one that exits at once, one never ready, one found under a home only its owner may enter, one
# that leaves a daemon, needs a terminal, leaves a zombie or listens on 127.0.0.2; bad input
# (exit 2, nothing run); a shutdown still running at the settle bound. Each part asserts the
# verdict per reaper, that the folder is byte-for-byte as it was, and that nothing the run started
# is left on the host.
#   own_tree_commands_test.sh BUILD_BIN_DIR SOURCE_DIR edges|input|graceful
# shellcheck disable=SC2016 # jq's and perl's $names, in single quotes
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
. "$(dirname "$0")/lib/common.sh"
# shellcheck source-path=SCRIPTDIR source=lib/own_tree.sh
. "$(dirname "$0")/lib/own_tree.sh"
e2e_setup "$1" "$2"
what=$3

case "$what" in
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
    expect_in "$work/out" "only 'reproduce' and 'watch' take a command after '--'"
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
  *)
    echo "unknown part '$what'" >&2
    exit 2
    ;;
esac
[ "$failures" -eq 0 ] || exit 1
echo "own-tree/$what: ok"
