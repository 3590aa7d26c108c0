#!/usr/bin/env bash
# The host side of the kernel signal trace (harness/sandbox/kernel_signal_trace.h), as root in
# the initial PID namespace only.
#
# Kept instances: with --keep-trace a run takes the tracing instance the last one left
# instead of making its own, and its verdict still rests on its own case's kernel signals alone.
# Each run here is the cgroup-kill-everything control on plain-child, whose bystander-hit verdict
# only the kernel tracepoint can show (a cgroup.kill write names no process). Between runs the
# kept instance is tampered with as a dead or foreign user could leave it: a live stranger's pid
# in set_event_pid, stale barrier markers in its buffer, its trigger gone.
#
# A prompt reader: while a traced case runs, the run's thread that translates the events is
# real-time (SCHED_FIFO), and nothing in the sandbox inherits that.
#   trace_host_test.sh BUILD_BIN_DIR SOURCE_DIR
set -uo pipefail
bin=$1/reapcheck
control=$2/tests/controls/cgroup-kill-everything.sh
if [ "$(id -u)" -ne 0 ] || ! grep -q tracefs /proc/filesystems ||
  [ "$(stat -Lc %i /proc/self/ns/pid)" -ne $((0xEFFFFFFC)) ]; then
  echo "skipped: needs root in the initial PID namespace, with tracefs"
  exit 77
fi
work=$(mktemp -d)
stranger=
cleanup() {
  [ -n "$stranger" ] && kill "$stranger" 2>/dev/null
  "$bin" clean >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
. "$(dirname "$0")/failures.sh"

# SCRIPT runs with the current directory at tracefs's instances/, mounted privately.
in_tracefs() {
  unshare -m --propagation private sh -c 'mountpoint -q /sys/kernel/tracing ||
    mount -t tracefs nodev /sys/kernel/tracing; cd /sys/kernel/tracing/instances && eval "$1"' \
    sh "$1"
}
kept() { in_tracefs 'ls -d reapcheck-kept-* 2>/dev/null'; }
# Whether another run on the host holds a kept instance now: the slots are the host's, shared by
# design (a CTest matrix test of another checkout, a developer's run), and which one a run here
# takes is then not this test's to say. $contended remembers it was ever so.
contended=0
others_keep() {
  "$bin" clean --list | awk '$1 == "tracing" && $3 == "alive" && $4 ~ /reapcheck-kept-/' | grep -q . &&
    contended=1
}
inode() { in_tracefs "stat -c %i $1"; }

# run NAME [KEEP]: the control on plain-child; true when its verdict rests on the kernel's
# cgroup.kill, with its sender, hitting a process outside the tree.
run() {
  others_keep
  "$bin" run -q -j 1 ${2:+--keep-trace} --scenario plain-child \
    --reaper "exec:sh $control {pid}" --json "$work/$1.json" >"$work/$1.out" 2>&1
  others_keep
  perl -MJSON::PP -e '
    my $r = decode_json(do { local $/; open my $f, "<", $ARGV[0] or die; <$f> });
    my $c = $r->{cases}[0];
    exit !($c->{verdict} eq "bystander-hit" && grep { $_->{kernel} &&
      $_->{call} eq "kernel: cgroup.kill" && $_->{hit_outside} && $_->{sender}{pid} }
      @{ $c->{signals} });' "$work/$1.json" ||
    { fail "$1: no bystander-hit from the kernel's cgroup.kill: $(cat "$work/$1.out")"; return 1; }
}

if others_keep; then
  echo "skipped: another run on this host holds a kept tracing instance"
  exit 77
fi
"$bin" clean >/dev/null
[ -z "$(kept)" ] || others_keep || fail "kept instances before the first run: $(kept)"

run first keep
name=$(kept)
[ "$name" = reapcheck-kept-0 ] || fail "the first keeping run left '$name', not reapcheck-kept-0"
[ "$(in_tracefs "cat $name/tracing_on")" = 0 ] || fail "$name records while no run holds it"
first=$(inode "$name")

# A stranger's pid, left in set_event_pid, and barriers that belong to no case in its buffer (the
# verdict must still come from this case's events; the stranger must no longer be followed).
sleep infinity &
stranger=$!
in_tracefs "echo $stranger >>$name/set_event_pid; echo 1 >$name/tracing_on;
  for n in 1 2 3 4 5 6 7 8; do echo sync \$n >$name/trace_marker; done; echo 0 >$name/tracing_on"
run tampered keep
[ "$(inode "$name")" = "$first" ] || fail "the second keeping run made a new instance, not took $name"
in_tracefs "cat $name/set_event_pid" | grep -qx "$stranger" &&
  fail "the stranger's pid $stranger is still followed after a run took $name"

# Half set up, as a user killed while making it would leave it: made again, not trusted.
in_tracefs "echo '!stacktrace' >$name/events/signal/signal_generate/trigger"
run remade keep
[ "$(inode "$name")" != "$first" ] || fail "a run took $name without its trigger, not made it again"

# A run that keeps none leaves it for the runs that share it; in use, clean leaves it too; once
# free, clean removes it, and says so.
run plain
[ "$(kept)" = "$name" ] || fail "a run that keeps none removed or changed the kept $name"
flock /run/reapcheck/trace-slots/0 "$bin" clean >"$work/held.out"
[ -n "$(kept)" ] || fail "clean removed $name while a run held it"
"$bin" clean >"$work/clean.out"
[ -z "$(kept)" ] || fail "clean left $(kept)"
grep -q "1 tracing instance" "$work/clean.out" ||
  fail "clean did not say it removed $name: $(cat "$work/clean.out")"

# What the kept instances went through is this test's to judge only if no other run took one
# meanwhile.
others_keep
if [ "$failures" -gt 0 ] && [ "$contended" -eq 1 ]; then
  echo "skipped: another run on this host took a kept tracing instance while this test ran ($failures check(s) could not be judged)"
  exit 77
fi

# Two cases held open in turn by their reapers, which say they run and then wait on a FIFO. While
# the first runs, the run makes the second's sandbox; both are looked at meanwhile.
mkdir -m 1777 "$work/share"
mkfifo -m 666 "$work/share/started" "$work/share/never"
held_reaper() { echo "exec:sh -c 'echo $1 >$work/share/started; read x <$work/share/never'"; }
REAPCHECK_SHARE=$work/share "$bin" run -q -j 1 --scenario plain-child \
  --reaper "$(held_reaper one)" --reaper "$(held_reaper two)" >"$work/held-case.out" 2>&1 &
held=$!
read -r _ <"$work/share/started"
ps -eLo pid=,cls= | awk -v run="$held" '$1 == run && $2 == "FF"' | grep -q . ||
  fail "no thread of run $held is real-time while its traced case runs: $(ps -Lo tid,cls,comm -p "$held")"
# Everything below the run: this case's sandbox (PID 1, the tree, the reaper) and the next's.
below() {
  ps -e -o pid=,ppid=,cls=,comm= | awk -v run="$held" '
    { parent[$1] = $2; line[$1] = $0 }
    END { for (p in parent) { q = parent[p]; while (q > 1 && q != run) q = parent[q]
          if (q == run) print line[p] } }'
}
below >"$work/below"
inherited=$(awk '$3 != "TS"' "$work/below")
[ -z "$inherited" ] || fail "processes below run $held inherited its real-time policy: $inherited"
sandboxes=$(awk -v run="$held" '$2 == run' "$work/below" | wc -l)
[ "$sandboxes" -ge 2 ] ||
  fail "$sandboxes sandbox(es) below run $held, not this case's and the next's: nothing was looked at"
echo go >"$work/share/never"
read -r _ <"$work/share/started"
echo go >"$work/share/never"
wait "$held"

echo "trace_host: $failures failed"
[ "$failures" -eq 0 ]
