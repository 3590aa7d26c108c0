#!/usr/bin/env bash
# scripts/prove-deb on the build's own package: it installs on a clean Debian 12 root and runs
# --version, list and setsid-escape under pgroup there; no mount and no root is left after it.
# Needs root, debootstrap and the network: registered only with -DREAPCHECK_NETWORK_TESTS=ON.
#   prove_deb_test.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1
src=$2
. "$(dirname "$0")/failures.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cpack --config "$build/CPackConfig.cmake" -G DEB -B "$work" >"$work/cpack.log" 2>&1 ||
  fail "cpack: $(tail -5 "$work/cpack.log")"
deb=$(ls "$work"/reapcheck_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || { fail "cpack made no reapcheck_*.deb"; exit 1; }
"$src/scripts/prove-deb" "$deb" >"$work/out" 2>&1 || fail "prove-deb exited $?"
cat "$work/out"
version=$(sed -n 's/^project(reapcheck VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
grep -qx "reapcheck $version" "$work/out" || fail "reapcheck --version did not print reapcheck $version"
grep -q "^  setsid-escape " "$work/out" || fail "reapcheck list did not list setsid-escape"
grep -qE "^setsid-escape +leak \(known\)" "$work/out" ||
  fail "the case did not end in the known leak"
root=$(sed -n 's/^prove-deb: root \(.*\)$/\1/p' "$work/out")
[ -n "$root" ] && [ ! -e "$root" ] || fail "the root '$root' is left behind"
[ -z "$root" ] || ! findmnt -rn -o TARGET | grep -q "^$root" || fail "mounts are left under $root"
echo "prove-deb: $failures failed"
[ "$failures" -eq 0 ]
