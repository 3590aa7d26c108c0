#!/usr/bin/env bash
# packaging/debian-packages is the one list of the Debian packages reapcheck needs: the .deb's
# Depends, Recommends and Suggests are its roles (CMake writes them into CPackConfig.cmake),
# scripts/setup.sh holds no list of its own, and the harness names no package in a message but
# through debian_packages.h (generated from it; a program it does not name fails the build).
#   packages_test.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src=$1
build=$2
list=$src/packaging/debian-packages
. "$(dirname "$0")/failures.sh"

# ROLE's packages in the list, comma-separated, in its order.
of_role() { grep -v '^#' "$list" | awk -v role="$1" '$2 == role { printf "%s%s", sep, $1; sep = ", " }'; }

for field in DEPENDS RECOMMENDS SUGGESTS; do
  role=$(tr '[:upper:]' '[:lower:]' <<<"$field")
  want=$(of_role "$role")
  [ -n "$want" ] || fail "no package has the role $role in $list"
  got=$(sed -n "s/^set(CPACK_DEBIAN_PACKAGE_$field \"\(.*\)\")$/\1/p" "$build/CPackConfig.cmake")
  [ "$got" = "$want" ] || fail "the .deb's $field is '$got', the list's $role packages '$want'"
done

copies=$(grep -nE '^[^#]*\bpackages\+?=\([a-z]' "$src/scripts/setup.sh")
[ -z "$copies" ] || fail "scripts/setup.sh lists packages of its own, not the list's: $copies"
grep -q 'packaging/debian-packages' "$src/scripts/setup.sh" ||
  fail "scripts/setup.sh does not read packaging/debian-packages"

# Code only: a comment may give an example.
named=$(find "$src/harness" -name '*.cpp' -o -name '*.h' | xargs perl -ne '
  s{//.*}{}; print "$ARGV:$.: $_" if /"[^"]*Debian( package|:) [a-z]/; close ARGV if eof')
[ -z "$named" ] || fail "a message names a Debian package by hand, not through debian_packages.h:
$named"

echo "packages: $failures failed"
[ "$failures" -eq 0 ]
