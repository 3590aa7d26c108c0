#!/usr/bin/env bash
# Nothing a case does outlives it or reaches the host (issue 53), as a user runs reapcheck:
#   memory    a case's memory, what it keeps in its /tmp included, is bounded (--memory-max; by
#             default a quarter of the host's): a case over it is a setup-error naming the bound
#   tmpdir    any TMPDIR works for every kind of case: ',', ':', '\', a newline, quotes, a byte
#             that is no UTF-8
#   dirs      reproduce --dir on one of the kernel's own file systems is refused before any case
#   held      clean --list --run PID lists a killed run's case workers' tracing instances
#   kill-all  a reaper whose kill ends the reaper host and the bystanders (kill -9 -1) is said to
#             be why the case could not go on (run it in `unshare --pid --fork --mount-proc`)
#   cwd       a run started in /tmp, whose working directory the case sees, leaves the case's
#             /tmp its own: neither what the case writes there nor its sockets' folder reaches the
#             host's
#   contained_test.sh BUILD_BIN_DIR SOURCE_DIR PART
# shellcheck disable=SC2016 # the shell code and jq given to reapcheck, in single quotes
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
. "$(dirname "$0")/lib/common.sh"
e2e_setup "$1" "$2"
part=$3

# Whether a memory cgroup can bound a case here: the v2 controller in this process's group, or,
# as root, a v1 memory hierarchy.
memory_cgroup_here() {
  local cg2 home
  cg2=$(findmnt -n -t cgroup2 -o TARGET | head -n 1)
  home=$cg2$(sed -n 's/^0:://p' /proc/self/cgroup)
  [ -n "$cg2" ] && grep -qw memory "$home/cgroup.controllers" 2>/dev/null && return 0
  [ "$(id -u)" -eq 0 ] && [ -n "$(findmnt -n -t cgroup -O memory -o TARGET)" ]
}

case "$part" in
  memory)
    mkdir "$work/project"
    cd "$work/project" || exit 1
    if memory_cgroup_here; then
      # A command that fills its /tmp, a tmpfs of the case's, far past a small bound; it is ready
      # (and killed) only once it has.
      run 1 "$bin" reproduce --reaper pgroup --memory-max 64M --ready-log '^filled$' -- \
        sh -c 'head -c 300M /dev/zero >/tmp/reapcheck-fill; echo filled; sleep 100 & wait'
      check "a case that fills its /tmp past --memory-max exits 1" $?
      grep -q "pgroup: setup-error — the case went over its memory bound, 64 MiB" "$work/out" &&
        grep -q "OOM killer ended" "$work/out"
      check "it is a setup-error that names the bound" $?
      # One whose process allocates past it.
      run 1 "$bin" reproduce --reaper pgroup --memory-max 64M --ready-log '^allocated$' -- \
        perl -e '$| = 1; $x = "x" x (300 << 20); print "allocated\n"; sleep 100'
      check "a case that allocates past --memory-max exits 1" $?
      grep -q "pgroup: setup-error — the case went over its memory bound, 64 MiB" "$work/out"
      check "it is a setup-error that names the bound too" $?
    fi
    # Where no memory cgroup can be made (rootless, with no memory controller delegated), each
    # tmpfs the case writes is still bounded (its processes' memory is not: docs/safety.md). As
    # root, tried as nobody, whom no cgroup is delegated to.
    as=(env)
    if [ "$(id -u)" -eq 0 ]; then
      as=(setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/nonexistent)
      chmod 711 "$work"
      chmod 777 "$work/project"
    fi
    mkdir -m 777 "$work/tmp"
    if [ "$(id -u)" -ne 0 ] && memory_cgroup_here; then
      echo "note: a memory cgroup bounds this rootless run; the tmpfs-only bound is not tried"
    elif ! "${as[@]}" "$bin" --version >/dev/null 2>&1; then
      echo "note: nobody cannot run $bin here; the tmpfs-only bound is not tried"
    else
      run 0 "${as[@]}" TMPDIR="$work/tmp" "$bin" reproduce --reaper subreaper --memory-max 64M \
        --ready-log '^bounded$' -- sh -c 'head -c 300M /dev/zero >/tmp/f 2>/dev/null;
          [ "$(stat -c %s /tmp/f)" -le $((64 << 20)) ] && echo bounded; sleep 100 & wait'
      check "rootless, no memory cgroup: the case's /tmp holds at most --memory-max, and it runs" $?
    fi
    [ ! -e /tmp/reapcheck-fill ]
    check "nothing the case wrote is on the host" $?
    [ -z "$(running_with reapcheck-fill)" ] && [ -z "$(running_with 'x" x (300')" ]
    check "nothing of the cases runs" $?

    # The default, a quarter of the host's memory, and a bound given: in the run's header.
    quarter=$(awk '/^MemTotal:/ { print $2 * 1024 / 4 }' /proc/meminfo)
    run 0 "$bin" run --scenario plain-child --reaper pgroup --json "$work/default.json"
    check "a run with the default bound" $?
    shown=$(json "$work/default.json" '.info.options["memory-max"]')
    awk -v q="$quarter" -v s="$shown" 'BEGIN {
      split(s, w, " "); f = (w[2] == "GiB") ? 1073741824 : 1048576;
      exit !(w[1] * f > q * 0.95 && w[1] * f < q * 1.05) }'
    check "the default bound is a quarter of MemTotal ($shown)" $?
    run 0 "$bin" run --scenario plain-child --reaper pgroup --memory-max 768M \
      --json "$work/given.json"
    check "a run with --memory-max 768M" $?
    [ "$(json "$work/given.json" '.info.options["memory-max"]')" = "768 MiB" ]
    check "the run's header gives the bound" $?

    run 2 "$bin" run --scenario plain-child --reaper pgroup --memory-max 1M
    check "a bound under 64M is exit 2" $?
    run 2 "$bin" reproduce plain-child --no-sandbox --memory-max 1G
    check "--memory-max with --no-sandbox is exit 2" $?
    grep -q "\-\-memory-max bounds a case's sandbox" "$work/err"
    check "it says why" $?
    ;;
  tmpdir)
    mkdir "$work/project"
    # A TMPDIR with the bytes overlayfs, PATH, the shell or node treat specially: ',', ':' and
    # '\' (the case sees its scratch elsewhere: no PATH entry holds a ':'); ',', '\', a space,
    # quotes and $(...) (at its own path); a newline and a byte that is no UTF-8 (elsewhere).
    for name in 'a,b:c\d' $'a,b\\c d\'q"$(touch PWNED)%' $'a\nb\xff'; do
      tmp="$work/$name"
      shown=$(printf '%q' "$tmp")
      mkdir -p "$tmp"
      (cd "$work/project" && TMPDIR="$tmp" "$bin" reproduce --reaper subreaper --reaper cgroup -- \
        sh -c 'sleep 100 & wait' >"$work/out" 2>"$work/err")
      check "TMPDIR=$shown: a command of yours runs under each reaper" $?
      # A perl tree, PATH without ps or with busybox's, npm and vite, a PID race, a kill from
      # inside the tree (an exec: reaper's), cgroups, a PTY, the orchestrator killed.
      TMPDIR="$tmp" "$bin" run -q --scenario plain-child --scenario no-ps \
        --scenario busybox-ps --scenario npm-dev-server --scenario vite-dev-server \
        --scenario pid-reuse --scenario reaper-inside-tree --scenario nested-cgroups \
        --scenario pty-hangup --scenario supervisor-killed --reaper cgroup --reaper pgroup \
        --reaper 'exec:/bin/kill -KILL -- -{pgid}' --json "$work/cases.json" \
        >"$work/out" 2>"$work/err"
      json_holds "$work/cases.json" '.cases | length == 30 and all(.[];
        (.verdict | IN("setup-error", "reaper-error") | not) and
        ((.reaper | startswith("exec:")) or .as_expected))'
      check "TMPDIR=$shown: every kind of case runs, the built-in reapers' as declared" $?
      [ -z "$(ls -A "$tmp")" ]
      check "TMPDIR=$shown: nothing is left in it" $?
    done
    [ -z "$(find "$work" -name PWNED)" ]
    check "nothing in a TMPDIR's name ran" $?
    run 2 env TMPDIR="$work/a,b:c\\d" "$bin" reproduce plain-child --no-sandbox
    check "reproduce --no-sandbox refuses a TMPDIR with a ':'" $?
    ;;
  dirs)
    cgmount=$(findmnt -n -t cgroup2,cgroup -o TARGET | head -n 1)
    for dir in /proc /proc/self /sys /dev /dev/pts ${cgmount:+"$cgmount"}; do
      run 2 "$bin" reproduce --reaper pgroup --dir "$dir" -- sh -c 'sleep 100 & wait'
      check "reproduce --dir $dir is exit 2" $?
      grep -q "on [a-z0-9]*, one of the kernel's own file systems" "$work/err" &&
        ! grep -q "Reproducing" "$work/out"
      check "it says why, before any case" $?
    done
    ;;
  held)
    if [ "$(id -u)" -ne 0 ] || ! grep -qw tracefs /proc/filesystems ||
      [ "$(stat -Lc %i /proc/self/ns/pid)" -ne $((0xEFFFFFFC)) ]; then
      echo "SKIP: tracing instances are root's, in the initial PID namespace"
      exit 77
    fi
    mkdir "$work/tmp"
    TMPDIR=$work/tmp "$bin" run -q -j 2 --scenario plain-child --reaper pgroup --repeat 40 \
      >/dev/null 2>&1 &
    run_pid=$!
    traced=()
    for _ in $(seq 100); do
      mapfile -t traced < <(TMPDIR=$work/tmp "$bin" clean --list --run "$run_pid" |
        awk '$1 == "tracing" { print $4 }')
      [ "${#traced[@]}" -ge 2 ] && break
      sleep 0.2
    done
    [ "${#traced[@]}" -ge 2 ]
    check "run $run_pid, with two case workers, holds their tracing instances" $?
    # As a CTest timeout kills it: the run and its workers at once.
    kill -KILL "$run_pid" $(pgrep -P "$run_pid") 2>/dev/null
    wait "$run_pid" 2>/dev/null
    listed=$(TMPDIR=$work/tmp "$bin" clean --list --run "$run_pid")
    everyone=$("$bin" clean --list)
    for t in "${traced[@]}"; do
      # Another run on this host may remove a dead run's first: not this test's to judge.
      grep -q " $t\$" <<<"$everyone" || { echo "note: another run removed $t first"; continue; }
      grep -q "^tracing $run_pid dead $t\$" <<<"$listed"
      check "clean --list --run $run_pid lists $t, dead" $?
    done
    # The next run removes what the killed one left.
    TMPDIR=$work/tmp run 0 "$bin" run -q -j 1 --scenario plain-child --reaper subreaper
    check "the next run" $?
    [ -z "$(TMPDIR=$work/tmp "$bin" clean --list --run "$run_pid")" ]
    check "the next run removed what run $run_pid held" $?
    ;;
  kill-all)
    # Signalling -1 from a supervisor, as the agent starts, ends every process of the sandbox
    # but its PID 1: the reaper host and the bystanders with them.
    for ledger in on off; do
      flags=()
      [ "$ledger" = off ] && flags=(--no-ledger)
      run 1 "$bin" run --scenario plain-child --reaper 'supervise:kill -9 -1' "${flags[@]}" \
        --json "$work/$ledger.json"
      check "supervise:kill -9 -1 (ledger $ledger) is no pass" $?
      reason=$(json "$work/$ledger.json" '.cases[0].blocked.reason // ""')
      if [ "$ledger" = on ]; then
        grep -q "^the reaper's side signalled the harness's own processes: .*kill(every process, SIGKILL)" <<<"$reason"
      else
        grep -q "^the reaper host (pid [0-9]*) was killed by SIGKILL" <<<"$reason"
      fi
      check "(ledger $ledger) the case says the reaper's kill ended the harness's processes: $reason" $?
      ! grep -q "is .* built?" <<<"$reason"
      check "(ledger $ledger) it does not ask whether a helper is built" $?
    done
    ;;
  cwd)
    # The case writes where its sockets' folder is (REAPCHECK_READY_SOCKET's) into a folder it
    # shares with the host (REAPCHECK_SHARE, which the sandbox's uid may write), and a file of its
    # own into its /tmp.
    mkdir "$work/project"
    mkdir -m 777 "$work/share"
    chmod 711 "$work"
    probe=reapcheck-started-in-tmp-$$
    (cd /tmp && REAPCHECK_SHARE=$work/share "$bin" reproduce --reaper cgroup --dir "$work/project" \
      --ready-log '^ready$' -- sh -c 'echo "$REAPCHECK_READY_SOCKET" >"$1/socket"; touch "/tmp/$2"
        echo ready; sleep 100 & wait' sh "$work/share" "$probe" >"$work/out" 2>"$work/err")
    check "reproduce, started in /tmp" $?
    socket=$(cat "$work/share/socket" 2>/dev/null)
    [ -n "$socket" ]
    check "the case said where its sockets are ($socket)" $?
    sockets=$(dirname "$socket")
    case "$sockets" in /tmp/reapcheck-sockets-?*) ! [ -e "$sockets" ] ;; *) false ;; esac
    check "its sockets' folder $sockets is not on the host" $?
    [ ! -e "/tmp/$probe" ]
    check "what it wrote to its /tmp is not on the host" $?
    # What the case left where it could (before the fix): this test's own, removed.
    case "$sockets" in /tmp/reapcheck-sockets-?*) rm -rf -- "$sockets" ;; esac
    rm -f -- "/tmp/$probe"
    ;;
  *)
    echo "contained_test.sh: unknown part '$part'" >&2
    exit 2
    ;;
esac
echo "contained/$part: $passed passed, $failures failed"
[ "$failures" -eq 0 ]
