#!/usr/bin/env bash
# Descriptors reapcheck inherits (a CI runner's pipes, a shell's redirections) reach none of its
# children: neither a tree member nor an exec: reaper holds anything beyond 0-2 but what it
# opened itself. Run with fd 7 open on a file, as a careless caller would. And its own stay
# within a few per member: wide-tree (1,000 members) under subreaper, which signals each member
# by pidfd two or three times, passes with `ulimit -n 4000` (the signal ledger once kept a pidfd
# per call, needed more than 4,000 there and failed with "opendir /proc: Bad file descriptor").
#   fds_test.sh BUILD_BIN_DIR
set -uo pipefail
bin=$1/reapcheck
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

mkdir "$work/scenarios"
# The listings are written from inside the sandbox: into a folder handed to it (REAPCHECK_SHARE).
mkdir -m 1777 "$work/share"
# The member lists its descriptors and stays; find's own (its cwd, the output, the listing)
# are told apart by what they point to.
list="cd / && find /proc/self/fd/ -mindepth 1 -maxdepth 1 -fprintf"
cat >"$work/scenarios/lister.toml" <<TOML
description = "A member that lists the file descriptors it was handed"
[tree]
role = "agent"
[[tree.children]]
role = "lister"
exec = ["sh", "-c", "$list $work/share/agent '%f %l\\\\n'; exec sleep infinity"]
TOML

exec 7>"$work/inherited"
REAPCHECK_SHARE=$work/share "$bin" --scenarios "$work/scenarios" run -q --scenario lister \
  --reaper "exec:sh -c \"$list $work/share/reaper '%f %l\\n'\"" --json "$work/r.json" >"$work/out" 2>&1
exec 7>&-

for who in agent reaper; do
  if [ ! -s "$work/share/$who" ]; then
    echo "FAIL: the $who listed no descriptors: $(cat "$work/out")" >&2
    failures=$((failures + 1))
    continue
  fi
  # Beyond 0-2, only find's own: the directory it lists, its output file, its cwd (a directory).
  extra=$(while read -r fd target; do
    [ "$fd" -le 2 ] || [[ $target == /proc/* ]] || [ "$target" = "$work/share/$who" ] ||
      [ -d "$target" ] || echo "fd $fd -> $target"
  done <"$work/share/$who")
  if [ -n "$extra" ]; then
    echo "FAIL: the $who was handed: $extra" >&2
    failures=$((failures + 1))
  fi
done
(
  ulimit -n 4000 &&
    "$bin" run -q --scenario wide-tree --reaper subreaper --json "$work/wide.json" >"$work/wide.out" 2>&1
)
status=$?
if [ "$status" -ne 0 ] || ! grep -q '"verdict": *"pass"' "$work/wide.json"; then
  echo "FAIL: wide-tree × subreaper with 4,000 fds exited $status: $(tail -5 "$work/wide.out")" >&2
  failures=$((failures + 1))
fi
echo "fds: agent, reaper and a 1,000-member tree's budget checked; $failures failure(s)"
[ "$failures" -eq 0 ]
