#!/usr/bin/env bash
# The CI gate's install path, offline:
#   scripts/fetch-release  downloads the release's .deb only at the tag of this version, and
#                          prints nothing (the gate builds) at another ref or when the release
#                          has no such asset (a release tree served from file://)
#   scripts/ci-gate        as the action runs it in its debian:12 container (root on Debian 12,
#                          so directly): a reaper compiled here, in the image the gate runs in,
#                          passes sigterm-ignorer, and a do-nothing reaper fails it; the
#                          reapcheck of this version on PATH is used, nothing is built
# Exits 77 where the gate does not run directly (not root on Debian 12), or without cc.
#   ci_gate_test.sh BIN_DIR SOURCE_DIR
set -uo pipefail
bin=$1
src=$2
. "$(dirname "$0")/failures.sh"
# Not under /tmp: each case's sandbox has a private /tmp, and the reaper lives in the user's
# workspace, the gate's working directory, as in CI; readable by the sandbox's own user.
work=$(mktemp -d "$bin/../ci-gate.XXXXXX")
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT

version=$(sed -n 's/^project(reapcheck VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
case $(uname -m) in x86_64) arch=amd64 ;; aarch64) arch=arm64 ;; *) arch=$(uname -m) ;; esac
deb=reapcheck_${version}_$arch.deb
mkdir -p "$work/srv/owner/reapcheck/releases/download/v$version"
echo "a package" >"$work/srv/owner/reapcheck/releases/download/v$version/$deb"
fetch() {  # fetch REF REPOSITORY → stdout in $got, stderr in $work/err
  got=$(GITHUB_SERVER_URL=file://$work/srv "$src/scripts/fetch-release" "$1" "$2" \
    "$work/dl" 2>"$work/err") || fail "fetch-release $1 $2 exited $?: $(cat "$work/err")"
}

fetch "v$version" owner/reapcheck
[ "$got" = "$work/dl/$deb" ] && [ "$(cat "$got" 2>/dev/null)" = "a package" ] ||
  fail "at v$version, fetch-release printed '$got', not the downloaded $work/dl/$deb"
fetch main owner/reapcheck
[ -z "$got" ] && grep -q "'main' is not the tag of this version" "$work/err" ||
  fail "at main, fetch-release printed '$got' ($(cat "$work/err")), not nothing"
fetch "v$version" owner/elsewhere
[ -z "$got" ] && grep -q "not found; reapcheck will be built" "$work/err" ||
  fail "with no asset, fetch-release printed '$got' ($(cat "$work/err")), not nothing"

. /etc/os-release
if [ "$(id -u)" -ne 0 ] || [ "$ID" != debian ] || [ "$VERSION_ID" != 12 ]; then
  echo "skipped the gate: not root on Debian 12, where ci-gate runs directly"
  echo "ci-gate: $failures failed"
  [ "$failures" -eq 0 ] && exit 77 || exit 1
fi
command -v cc >/dev/null || { echo "skipped: no C compiler to build the reaper"; exit 77; }

# The user's reaper, compiled where the gate runs it: the agent's process group, SIGKILLed.
cat >"$work/my-reaper.c" <<'EOF'
#include <signal.h>
#include <stdlib.h>
int main(int argc, char** argv) { return argc == 2 && kill(-atoi(argv[1]), SIGKILL) == 0 ? 0 : 1; }
EOF
cc -O2 -o "$work/my-reaper" "$work/my-reaper.c" || fail "cc could not build the reaper"

gate() {  # gate REAPER OUT → ci-gate's status; its stderr in OUT.err
  (cd "$work" && PATH=$bin:$PATH REAPCHECK_REAPER=$1 REAPCHECK_SCENARIOS=sigterm-ignorer \
    REAPCHECK_OUT=$2 "$src/scripts/ci-gate" >"$work/$2.out" 2>"$work/$2.err")
}
gate "exec:./my-reaper {pgid}" pass
status=$?
[ "$status" -eq 0 ] || fail "the compiled reaper: ci-gate exited $status: $(cat "$work/pass.out" "$work/pass.err")"
grep -q "ci-gate: using $bin/reapcheck, reapcheck $version" "$work/pass.err" ||
  fail "ci-gate did not use the reapcheck on PATH: $(cat "$work/pass.err")"
grep -q 'failures="0"' "$work/pass/junit.xml" 2>/dev/null ||
  fail "no junit.xml without failures in $work/pass"
! grep -q "building the reapcheck targets" "$work/pass.err" ||
  fail "ci-gate built reapcheck though one of its version was on PATH"
gate "exec:true" fail
status=$?
[ "$status" -eq 1 ] || fail "a do-nothing reaper: ci-gate exited $status, not 1 (a deviation)"
grep -q "sigterm-ignorer" "$work/fail/junit.xml" 2>/dev/null ||
  fail "no junit.xml naming the failing case in $work/fail"

echo "ci-gate: $failures failed"
[ "$failures" -eq 0 ]
