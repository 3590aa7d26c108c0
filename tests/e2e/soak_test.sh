#!/usr/bin/env bash
# scripts/soak on a small matrix: a clean run beside a hog exits 0 with nothing left and its
# hog stopped; a run that leaves something on the host, and one whose verdict differs from its
# expectation, each exit 1 (the soak's negative controls); bad usage exits 2.
#   soak_test.sh BUILD_BIN_DIR
set -uo pipefail
bin=$1
soak=$(dirname "$0")/../../scripts/soak
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/failures.sh"
small=(--scenario plain-child --reaper cgroup)

"$soak" --hogs 1 --bin "$bin" --out "$work/clean" "${small[@]}" --repeat 2 \
  >"$work/clean.out" 2>"$work/clean.err"
status=$?
[ "$status" -eq 0 ] || fail "a clean soak exited $status: $(cat "$work/clean.err")"
grep -q '"run": *2' "$work/clean/results.json" ||
  fail "the clean soak's results.json has no second repeat"
grep -q '0 item(s) left on the host' "$work/clean.err" || fail "no leftover count: $(cat "$work/clean.err")"
hog=$(sed -n 's/^soak: 1 hog(s) (pids \([0-9]*\)).*/\1/p' "$work/clean.err")
[ -n "$hog" ] || fail "the soak did not name its hog: $(cat "$work/clean.err")"
[ -n "$hog" ] && [ -d "/proc/$hog" ] && fail "the hog $hog still runs after the soak"

# A reapcheck whose run leaves a scratch-like directory after it ends: the soak must name it
# (its `clean --list` before the run finds nothing of the kind).
mkdir "$work/bin" "$work/tmp"
cat >"$work/bin/reapcheck" <<WRAPPER
#!/bin/sh
"$bin/reapcheck" "\$@"; s=\$?
[ "\$1" = run ] && mkdir "$work/tmp/reapcheck-99999-abcdef"
exit \$s
WRAPPER
chmod +x "$work/bin/reapcheck"
TMPDIR=$work/tmp "$soak" --hogs 0 --bin "$work/bin" --out "$work/left" "${small[@]}" \
  >/dev/null 2>"$work/left.err"
status=$?
[ "$status" -eq 1 ] || fail "a soak whose run left a directory exited $status, not 1"
grep -q "$work/tmp/reapcheck-99999-abcdef" "$work/left.err" ||
  fail "the soak did not name what was left: $(cat "$work/left.err")"

# A reaper that kills nothing, with no declared weakness: its leak must fail the soak.
"$soak" --hogs 0 --bin "$bin" --out "$work/leak" --scenario plain-child --reaper exec:true \
  >/dev/null 2>"$work/leak.err"
status=$?
[ "$status" -eq 1 ] || fail "a soak of a reaper that kills nothing exited $status, not 1"

"$soak" --hogs many --bin "$bin" >/dev/null 2>"$work/usage.err"
status=$?
[ "$status" -eq 2 ] || fail "--hogs many exited $status, not 2"
grep -q -- "--hogs takes a number" "$work/usage.err" || fail "no message for --hogs many"

echo "soak: clean, leftover, leak and usage cases; $failures failure(s)"
[ "$failures" -eq 0 ]
