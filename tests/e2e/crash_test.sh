#!/usr/bin/env bash
# A run killed with SIGKILL (as a CTest timeout kills it) cleans up nothing; the next run must
# remove what it left: its scratch directory and its cgroup area. The killed run is caught with
# its case in progress: the reaper it runs announces itself on a FIFO and then blocks.
#   crash_test.sh BUILD_BIN_DIR
set -uo pipefail
bin=$1/reapcheck
work=$(mktemp -d)
killed=
cleanup() {
  [ -n "$killed" ] && kill -s KILL "$killed" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
. "$(dirname "$0")/failures.sh"

mkdir "$work/tmp"
# The reaper: says it is running, then waits on a FIFO nobody ever writes; both in a folder
# handed to the sandbox (REAPCHECK_SHARE), for the sandbox's uid.
mkdir -m 1777 "$work/share"
mkfifo -m 666 "$work/share/started" "$work/share/never"
# Two cases finish first: the journal under --out must keep them through the kill.
TMPDIR=$work/tmp REAPCHECK_SHARE=$work/share "$bin" run -q -j 1 --scenario plain-child \
  --reaper pgroup --reaper subreaper \
  --reaper "exec:sh -c 'echo up >$work/share/started; read x <$work/share/never'" \
  --out "$work/killed" \
  >"$work/killed.out" 2>&1 &
killed=$!
read -r _ <"$work/share/started"
# Its --out is its own while it lives: a second run there, or a recovery of it, is refused before
# anything runs (exit 2), naming the holder's pid.
for second in "run -q -j 1 --scenario plain-child --reaper subreaper --out" "report --recover"; do
  # shellcheck disable=SC2086 # the command's words
  TMPDIR=$work/tmp "$bin" $second "$work/killed" >"$work/second.out" 2>&1
  status=$?
  [ "$status" -eq 2 ] && grep -q "in use by another reapcheck (pid $killed, " "$work/second.out" ||
    fail "$second on the --out of live run $killed exited $status: $(cat "$work/second.out")"
done

# What the run holds now, as a user would find it: reapcheck clean --list looks where the
# harness keeps each, by the names it gives them.
TMPDIR=$work/tmp "$bin" clean --list --run "$killed" >"$work/held" ||
  fail "clean --list --run $killed exited $?"
mapfile -t held <"$work/held"
scratch=() areas=() traced= owners=()
for h in "${held[@]}"; do
  read -r kind run state path <<<"$h"
  # Named for the run: what a worker it forks makes carries the run's pid too (owned_dir.h).
  [[ " ${owners[*]} " == *" $run "* ]] || owners+=("$run")
  [ "$state" = alive ] || fail "run $killed runs, but clean --list says: $h"
  case $kind in
    scratch) scratch+=("$path") ;;
    tracing) traced=${path#tracefs:instances/} ;;
    cgroup | pids | memory) areas+=("$path") ;;
    *) fail "clean --list: unknown kind in '$h'" ;;
  esac
done
[ "${#scratch[@]}" -ge 1 ] || fail "expected a scratch directory of run $killed, found none"
for d in "${scratch[@]}"; do
  [[ $d == "$work/tmp/"* ]] || fail "run $killed's scratch directory $d is not in TMPDIR"
done
if [ -z "$traced" ] && [ "$(id -u)" -eq 0 ] && grep -q "tracefs" /proc/filesystems &&
  [ "$(stat -Lc %i /proc/self/ns/pid)" -eq $((0xEFFFFFFC)) ]; then
  fail "run $killed, as root in the initial PID namespace, has no tracing instance"
fi

# As a CTest timeout kills it: the run (and any other owner listed), each by its pid.
for owner in "${owners[@]}"; do [ "$owner" = "$killed" ] || kill -s KILL "$owner" 2>/dev/null; done
kill -s KILL "$killed"
wait "$killed" 2>/dev/null
dead=$killed killed=
# What run $dead held, as `reapcheck clean --list --run` says of each pid the items were named
# for, in $work/listed.
held_by_dead() {
  : >"$work/listed"
  for owner in "${owners[@]}"; do
    TMPDIR=$work/tmp "$bin" clean --list --run "$owner" >>"$work/listed" ||
      fail "clean --list --run $owner exited $?"
  done
}
# The sandbox dies with the run, a moment later: its end releases the locks, which is what the
# next run looks at. flock(1) waits for exactly that.
for d in "${scratch[@]}" "${areas[@]}"; do flock "$d" true; done
for d in "${scratch[@]}"; do
  [ -d "$d" ] || fail "$d was gone before the next run: the test proves nothing"
done
# The cgroup areas, pids and memory groups and tracing instances are the host's: any run on it may
# remove a dead run's (the product at work, when another checkout's tests run beside this one). What
# another run removed first is not this test's to judge; the scratch directories, in this
# test's own TMPDIR, always are.
raced=()
kept_areas=()
for d in "${areas[@]}"; do
  if [ -d "$d" ]; then kept_areas+=("$d"); else raced+=("$d"); fi
done
areas=("${kept_areas[@]}")
traced_there() { "$bin" clean --list --run "$dead" | grep -q "tracefs:instances/$traced\$"; }
if [ -n "$traced" ] && ! traced_there; then
  raced+=("tracefs:instances/$traced")
  traced=
fi
# Dead now, and listed as such, every one of them.
held_by_dead
listed=$(cat "$work/listed")
[ "$(grep -c . <<<"$listed")" -eq $((${#held[@]} - ${#raced[@]})) ] ||
  fail "run $dead held ${#held[@]} item(s) (${#raced[@]} removed by another run), clean --list now lists: $listed"
alive=$(awk '$3 != "dead"' <<<"$listed")
[ -z "$alive" ] || fail "run $dead is dead, but clean --list says: $alive"

# The killed run's reports, from its journal: both finished cases, as they were judged.
"$bin" report --recover "$work/killed" >"$work/recovered.out" 2>&1
status=$?
# A run killed before its end is no pass, in any report: exit 1, an error for the run as a whole
# in junit.xml counting the case that never ran, "incomplete" in results.json.
[ "$status" -eq 1 ] || fail "report --recover of an incomplete run exited $status: $(cat "$work/recovered.out")"
grep -q 'message="the run is incomplete: 1 of its 3 case(s) never ran' "$work/killed/junit.xml" &&
  grep -q '<testsuites name="reapcheck" tests="3" failures="0" errors="1"' "$work/killed/junit.xml" ||
  fail "the recovered junit.xml does not say the run is incomplete: $(cat "$work/killed/junit.xml")"
grep -q '"incomplete": true' "$work/killed/results.json" &&
  grep -q "INCOMPLETE: the run is incomplete" "$work/recovered.out" ||
  fail "the recovered results.json or matrix does not say the run is incomplete"
grep -q "recovered 2 finished case(s)" "$work/recovered.out" ||
  fail "report --recover did not recover the two cases: $(cat "$work/recovered.out")"
perl -MJSON::PP -e 'local $/; my $r = decode_json(<STDIN>);
  exit(join(",", map { $_->{reaper} } @{ $r->{cases} }) eq "pgroup,subreaper" ? 0 : 1)' \
  <"$work/killed/results.json" || fail "the recovered results.json does not hold the two cases"
for f in junit.xml matrix.txt matrix.html; do
  [ -s "$work/killed/$f" ] || fail "report --recover did not write $f"
done

traced_before=false
[ -n "$traced" ] && traced_there && traced_before=true
TMPDIR=$work/tmp "$bin" run -q -j 1 --scenario plain-child --reaper subreaper \
  --json "$work/next.json" >"$work/next.out" 2>"$work/next.err"
status=$?
[ "$status" -eq 0 ] || fail "the next run exited $status: $(cat "$work/next.err")"
for d in "${scratch[@]}" "${areas[@]}"; do
  [ -e "$d" ] && fail "the next run left $d in place"
done
held_by_dead
left=$(cat "$work/listed")
[ -z "$left" ] || fail "the next run left what run $dead held in place: $left"
# Said, when it was still there as the next run began (another run may take it in between).
if $traced_before && ! grep -q "1 tracing instance" "$work/next.err" && [ ${#raced[@]} -eq 0 ]; then
  fail "the next run did not say it removed the tracing instance: $(cat "$work/next.err")"
fi
want="removed what earlier runs left and no run holds: ${#scratch[@]} scratch director"
grep -q "$want" "$work/next.err" || fail "the next run did not say what it removed: $(cat "$work/next.err")"
left=$(find "$work/tmp" -mindepth 1 | wc -l)
[ "$left" -eq 0 ] || fail "$left entries left in TMPDIR after the next run: $(ls "$work/tmp")"

# A directory that only looks like ours is never touched, nor one a live run holds.
mkdir "$work/tmp/reapcheck-notes" "$work/tmp/reapcheck-12-abcdef"
flock "$work/tmp/reapcheck-12-abcdef" sh -c "TMPDIR=$work/tmp '$bin' run -q -j 1 \
  --scenario plain-child --reaper subreaper >/dev/null 2>&1"
[ -d "$work/tmp/reapcheck-notes" ] || fail "a user's reapcheck-notes directory was removed"
[ -d "$work/tmp/reapcheck-12-abcdef" ] || fail "a held directory was removed"

# A new run on the killed run's --out keeps its journal, moved aside with a word, whole: it is
# recovered from there as from the folder.
cp "$work/killed/journal.jsonl" "$work/journal.before"
"$bin" run -q -j 1 --scenario plain-child --reaper subreaper --out "$work/killed" \
  >"$work/again.out" 2>&1 || fail "a new run on a killed run's --out: $(cat "$work/again.out")"
kept=$(sed -n 's/.* it is kept in \(.*\), where `reapcheck report --recover .*/\1/p' "$work/again.out")
[ -n "$kept" ] && cmp -s "$kept/journal.jsonl" "$work/journal.before" ||
  fail "the killed run's journal was not kept whole, with a word: $(cat "$work/again.out")"
"$bin" report --recover "$kept" >"$work/recovered.out" 2>&1
grep -q "recovered 2 finished case(s)" "$work/recovered.out" ||
  fail "the kept journal does not recover: $(cat "$work/recovered.out")"

[ ${#raced[@]} -eq 0 ] || echo "note: another run on this host removed first: ${raced[*]}"
echo "crash: ${#scratch[@]} scratch director(ies) and ${#areas[@]} cgroup area(s), pids or memory group(s) of a SIGKILLed run; $failures failure(s)"
[ "$failures" -eq 0 ]
