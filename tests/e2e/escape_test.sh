#!/usr/bin/env bash
# As root, a reaper that tries each escape of issue 17 from inside the sandbox reaches nothing of
# the host: a canary process in a host cgroup of its own survives a write to that group's
# cgroup.kill; unmounting /proc shows no host process; no host Unix socket (under /run, or /tmp)
# accepts it; no file it writes appears on the host; the case runner, PID 1, can be neither
# ptraced nor read through /proc. The case's evidence shows each attempt. The
# negative control runs the same script on the host, against a second canary, and sees every
# attempt reach: the test can fail. ctest runs it inside `unshare --pid --fork --mount-proc`.
#   escape_test.sh BUILD_BIN_DIR SOURCE_DIR
set -uo pipefail
bin=$1/reapcheck
src=$2
[ "$(id -u)" -eq 0 ] || { echo "SKIP: the escapes are root's to try"; exit 77; }
cgmount=$(findmnt -n -t cgroup2 -o TARGET | head -n 1)
[ -n "$cgmount" ] || { echo "SKIP: no cgroup v2 here"; exit 77; }
home=$cgmount$(sed -n 's/^0:://p' /proc/self/cgroup)
home=${home%/}

work=$(mktemp -d)
chmod 755 "$work"  # so that only the sandbox, not permissions, keeps the case out
shared=$(mktemp -d -p "$(cd "$1/.." && pwd)")
chmod 1777 "$shared"  # a host directory outside /tmp that anyone may write
mark=reapcheck-canary-$$-$RANDOM
. "$(dirname "$0")/failures.sh"
started=()
cleanup() {
  {
    for pid in "${started[@]}"; do kill -KILL "$pid"; done
    wait
  } 2>/dev/null
  rmdir "$home/$mark"-* 2>/dev/null
  rm -rf "$work" "$shared" "/run/$mark.sock" "/tmp/$mark.escaped"
}
trap cleanup EXIT

# Whether process PID (the test's own) runs: it exists and is not a zombie.
alive() { [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" ] &&
  [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]; }

# A process of the test's in a host cgroup of its own, its argv marked; returns once it is in
# the group, its pid in $canary.
start_canary() {
  mkdir "$home/$mark-$1"
  mkfifo "$work/$1.ready"
  perl -e 'open(my $f, ">", "$ARGV[0]/cgroup.procs") or die "$!"; print $f "$$\n";
    close $f or die "$!"; $0 = $ARGV[1]; $| = 1; print "ready\n"; close STDOUT; sleep' \
    "$home/$mark-$1" "$mark-$1" >"$work/$1.ready" &
  started+=($!)
  read -r _ <"$work/$1.ready"
  canary=${started[-1]}
}
start_canary in
canary_in=$canary
start_canary out
canary_out=$canary

# The host's Unix sockets, anyone's to connect to.
mkfifo "$work/listening"
perl -MIO::Socket::UNIX -e 'my @s = map { IO::Socket::UNIX->new(Type => SOCK_STREAM(),
    Local => $_, Listen => 8) or die "$_: $!" } @ARGV; chmod 0777, @ARGV;
    $| = 1; print "ready\n"; close STDOUT; sleep' "/run/$mark.sock" "$work/host.sock" \
  >"$work/listening" &
started+=($!)
read -r _ <"$work/listening"

files=("/tmp/$mark.escaped" "$work/escaped" "$shared/escaped")
listener=${started[-1]}
escape() { # CANARY RUNNER: the script and its arguments, in $args
  args=("$src/tests/e2e/escape_reaper.sh" "$home/$mark-$1" "$mark-$1" "$2" "/run/$mark.sock"
    "$work/host.sock" -- "${files[@]}")
}

# Inside: every attempt blocked, the canary alive, nothing written, the tree still killed, the
# case runner (PID 1) out of reach. Its attempt to ptrace the case runner is harm tried on a
# process outside the tree, which the ledger records (docs/architecture.md, "Harm without a
# signal"): the case is a bystander-hit for that attempt alone, with nothing of the tree left.
escape in 1
"$bin" run --scenario plain-child --json "$work/in.json" \
  --reaper "exec:sh ${args[*]}; /bin/kill -KILL -- -{pgid}" >"$work/in.out" 2>&1
jq -e '.cases[0] | .verdict == "bystander-hit" and (.survivors | length) == 0 and
    ([.signals[] | select(.hit_outside)] | length) > 0 and
    all(.signals[] | select(.hit_outside); .call == "ptrace" and
      all(.reached[]; .kind == "harness" and .pid == 1))' "$work/in.json" >/dev/null ||
  fail "the sandboxed run was not a bystander-hit for its ptrace of PID 1 alone: $(jq -r '.cases[0] | .verdict + ": " + .reason' "$work/in.json" 2>/dev/null) $(tail -n 5 "$work/in.out")"
steps=$(jq -r '.cases[0].reaper_steps[]' "$work/in.json" 2>/dev/null)
echo "$steps"
for what in "cgroup.kill $home/$mark-in" /proc "socket /run/$mark.sock" "socket $work/host.sock" \
  "write ${files[0]}" "write ${files[1]}" "write ${files[2]}" "ptrace 1" "environ 1" "fd 1"; do
  grep -qF "escape $what: " <<<"$steps" || fail "the evidence does not show the attempt: $what"
done
for what in "cgroup.kill" /proc socket "write $work" "write $shared" ptrace environ "fd "; do
  if grep -F "escape $what" <<<"$steps" | grep -q ': reached'; then
    fail "from inside, reached: $(grep -F "escape $what" <<<"$steps")"
  fi
done
alive "$canary_in" || fail "the canary in a host cgroup died"
for f in "${files[@]}"; do [ ! -e "$f" ] || fail "the case wrote $f on the host"; done

# The negative control: the same script on the host reaches each target, the runner's part
# played by the test's socket listener.
escape out "$listener"
out=$(sh "${args[@]}" 2>&1)
echo "$out"
reachable=("cgroup.kill" /proc "socket /run" "socket $work" "write" ptrace environ "fd ")
if [ "$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null)" = 3 ]; then
  echo "note: Yama forbids every ptrace attach here; the ptrace attempt is not checked outside"
  reachable=("${reachable[@]/ptrace/}")
fi
for what in "${reachable[@]}"; do
  [ -n "$what" ] || continue
  grep -F "escape $what" <<<"$out" | grep -q ': reached' ||
    fail "outside the sandbox, did not reach $what: the test could not see an escape"
done
if alive "$canary_out"; then fail "the host canary survived its cgroup.kill"; fi
for f in "${files[@]}"; do [ -e "$f" ] || fail "outside the sandbox, $f was not written"; done

[ "$failures" -eq 0 ] && echo "escape: ok"
exit $((failures > 0))
