#!/usr/bin/env bash
# reapcheck as users install and embed it.
#   install_test.sh BUILD_DIR SOURCE_DIR install|deb
# install: `cmake --install` to a prefix, which is then moved: the copy runs setsid-escape from /
#          with nothing of the checkout; a project built with find_package(reapcheck) kills a
#          setsid() tree through reaper/reaper.h; a project that add_subdirectory()s reapcheck
#          gets the library and none of reapcheck's tests.
# deb:     `cpack -G DEB`: the package's dependencies resolve (apt-get --simulate), its programs
#          are stripped (reapcheck under 15 MB) with their debug info in reapcheck-dbgsym under
#          their build ids, and its files, unpacked, run setsid-escape. With CI=true (or
#          REAPCHECK_DPKG_INSTALL=1) it is also installed with dpkg, run from /usr/bin, and
#          removed. (scripts/prove-deb installs it on a clean Debian 12 root: it needs the network.)
set -uo pipefail
build=$1
src=$2
what=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
check() {  # check NAME STATUS
  if [ "$2" -eq 0 ]; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi
}
quiet() { "$@" >"$work/log" 2>&1 || { sed 's/^/  /' "$work/log"; return 1; }; }

# setsid-escape under pgroup (a known leak) and proc-pidfd, as the installed copy sees it.
run_installed() {  # run_installed REAPCHECK
  (cd / && env -u REAPCHECK_SCENARIOS -u REAPCHECK_FIXTURES -u REAPCHECK_LIBEXEC "$1" run \
    --scenario setsid-escape --reaper pgroup --reaper proc-pidfd --json "$work/r.json" \
    >"$work/out" 2>&1) || { sed 's/^/  /' "$work/out"; return 1; }
  grep -q "setsid-escape *leak (known) *pass" "$work/out"
}

case "$what" in
  install)
    quiet cmake --install "$build" --prefix "$work/prefix"
    check "cmake --install" $?
    mv "$work/prefix" "$work/moved"
    run_installed "$work/moved/bin/reapcheck"
    check "the installed copy, moved, runs setsid-escape from / (leak under pgroup, pass under proc-pidfd)" $?
    # (grep reads whole outputs: with pipefail, grep -q leaving early would fail the writer)
    grep -q "\"file\": \"$work/moved/share/reapcheck/scenarios/" <<<"$("$work/moved/bin/reapcheck" list --json)"
    check "it reads the scenarios installed beside it" $?
    # docs/gate.md's "Anywhere else": the gate with an installed reapcheck, `exec:...` filled in
    # with a kill of the agent's group (enough for these two scenarios) and with a reaper that
    # kills nothing (a failed gate).
    gate() {  # gate REAPER OUT
      (cd "$work" && "$work/moved/bin/reapcheck" run --scenario plain-child \
        --scenario grandchildren --reaper "$1" --expect-pass --out "$2" >"$work/gate.log" 2>&1)
    }
    gate 'exec:kill -KILL -{pgid}' reapcheck-report &&
      [ -s "$work/reapcheck-report/results.json" ] && [ -s "$work/reapcheck-report/junit.xml" ]
    check "reapcheck run --reaper 'exec:...' --expect-pass --out reapcheck-report passes a correct reaper" $?
    gate 'exec:true' failed-report
    [ $? -eq 1 ] && grep -q "plain-child" "$work/failed-report/junit.xml"
    check "and fails one that kills nothing (exit 1), the report written all the same" $?
    if [ -d "$src/fixtures/node/vite-app/node_modules" ] && command -v npm >/dev/null; then
      (cd / && "$work/moved/bin/reapcheck" run --scenario vite-dev-server --reaper cgroup \
        >"$work/out" 2>&1) || sed 's/^/  /' "$work/out"
      grep -q "vite-dev-server *pass" "$work/out"
      check "its installed node packages run (vite-dev-server: npm runs node_modules/.bin/vite)" $?
    fi
    doc="$work/moved/share/doc/reapcheck"
    missing=$(grep -o '](docs/[^)#]*' "$doc/README.md" | sed 's/^](//' | sort -u |
      while read -r link; do [ -e "$doc/$link" ] || echo "$link"; done)
    [ -s "$doc/README.md" ] && [ -z "$missing" ]
    check "the installed README's links into docs/ resolve (${missing:-all there})" $?
    [ -s "$work/moved/share/bash-completion/completions/reapcheck" ]
    check "bash completion is installed" $?
    quiet cmake -S "$src/tests/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/moved" &&
      quiet cmake --build "$work/consumer"
    check "a project builds against find_package(reapcheck) and reapcheck::reaper" $?
    # In a PID namespace of its own: the tree it kills cannot be confused with anything else.
    unshare --pid --fork --mount-proc "$work/consumer/kill_setsid_tree" proc-pidfd
    check "through the public header, proc-pidfd kills a tree and its setsid() escapee" $?
    mkdir -p "$work/embed"
    printf 'cmake_minimum_required(VERSION 3.25)\nproject(embed CXX)\nenable_testing()\nadd_subdirectory(%s reapcheck)\n' \
      "$src" >"$work/embed/CMakeLists.txt"
    quiet cmake -S "$work/embed" -B "$work/embed/build" &&
      grep -q "Total Tests: 0" <<<"$(cd "$work/embed/build" && ctest -N)" &&
      grep -q "reapcheck_reaper" <<<"$(cmake --build "$work/embed/build" --target help)"
    check "add_subdirectory(reapcheck) gives the library and adds no tests" $?
    ;;
  deb)
    command -v cpack >/dev/null && command -v dpkg-deb >/dev/null ||
      { echo "skipped: cpack or dpkg-deb is absent"; exit 77; }
    quiet cpack --config "$build/CPackConfig.cmake" -G DEB -B "$work/pkg"
    deb=$(ls "$work"/pkg/reapcheck_*.deb 2>/dev/null | head -1)
    [ -n "$deb" ]
    check "cpack -G DEB builds $(basename "${deb:-none}")" $?
    dbgsym=$(ls "$work"/pkg/reapcheck-dbgsym_*.deb 2>/dev/null | head -1)
    [ -n "$dbgsym" ] && dpkg-deb -x "$dbgsym" "$work/dbg"
    check "and $(basename "${dbgsym:-no reapcheck-dbgsym package}") beside it" $?
    grep -q "Depends:.*perl" <<<"$(dpkg-deb -I "$deb")"
    check "the package depends on what the harness runs" $?
    quiet apt-get install --simulate "$deb"
    check "its dependencies resolve on this Debian (apt-get --simulate)" $?
    dpkg-deb -x "$deb" "$work/root"
    size=$(stat -c %s "$work/root/usr/bin/reapcheck")
    [ "$size" -lt $((15 * 1024 * 1024)) ]
    check "the packaged reapcheck is under 15 MB ($size bytes)" $?
    for program in "$work"/root/usr/bin/reapcheck "$work"/root/usr/libexec/reapcheck/*; do
      sections=$(readelf -S "$program")
      id=$(readelf -n "$program" | sed -n 's/.*Build ID: \([0-9a-f]*\)/\1/p')
      ! grep -q '\.debug_info' <<<"$sections" && grep -q '\.gnu_debuglink' <<<"$sections" &&
        [ -n "$id" ] && grep -q '\.debug_info' <<<"$(readelf -S \
          "$work/dbg/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" 2>&1)"
      check "$(basename "$program") is stripped, its debug info in reapcheck-dbgsym (build id ${id:-none})" $?
    done
    run_installed "$work/root/usr/bin/reapcheck"
    check "its files run setsid-escape" $?
    if [ "${CI:-}" = true ] || [ -n "${REAPCHECK_DPKG_INSTALL:-}" ]; then
      if dpkg-query -W reapcheck >/dev/null 2>&1; then
        echo "skipped the dpkg install: a reapcheck package is installed already"
      else
        quiet dpkg -i "$deb" && run_installed /usr/bin/reapcheck
        check "dpkg -i installs it and /usr/bin/reapcheck runs setsid-escape" $?
        quiet dpkg -r reapcheck
        check "dpkg -r removes it" $?
      fi
    fi
    ;;
esac
exit "$fail"
