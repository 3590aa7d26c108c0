#!/usr/bin/env bash
# scripts/check-layers on a small tree of its own: it fails for an include that points up and
# for a read of the environment below the CLI, names each, and passes what is allowed (the CLI
# and the bystander reading it, a comment or a string naming it, a line handing it on).
#   layers_test.sh SOURCE_DIR
set -uo pipefail
check=$1/scripts/check-layers
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/failures.sh"

put() { mkdir -p "$work/$(dirname "$1")" && printf '%s\n' "$2" >"$work/$1"; }
put harness/cli/environment.cpp 'const char* p = std::getenv("PATH");'
put harness/bystander/main.cpp 'const char* p = getenv("REAPCHECK_BYSTANDER_ROLE");'
put harness/engine/fine.cpp '#include "harness/model/result.h"
// Not getenv("X"): a comment may name it, and so may a string.
const char* s = "/proc/1/environ";
/* nor secure_getenv
   over lines, environ */
extern char** environ;  // check-layers: environment passed on'
put harness/engine/up.cpp '#include "harness/cli/common.h"'
# Between the engine's parts: run/ may use census/ and the top level; census/ may not use run/,
# and the top level (case.h) no part.
put harness/engine/run/fine.cpp '#include "harness/engine/census/census.h"
#include "harness/engine/case.h"'
put harness/engine/census/up.cpp '#include "harness/engine/run/matrix.h"'
put harness/engine/top.cpp '#include "harness/engine/tree/audit.h"'
put harness/sandbox/env.cpp 'bool keep() { return std::getenv("KEEP") != nullptr; }'
put reaper/os/env.cpp 'const char* t = ::secure_getenv("TMPDIR");'
put reaper/tree/env.cpp 'char** e = environ;'

out=$("$check" "$work")
rc=$?
[ "$rc" -eq 1 ] || fail "exit status $rc, not 1, for a tree with faults: $out"
expected="harness/engine/census/up.cpp:1: harness/engine/census includes harness/engine/run/matrix.h (harness/engine/run is not below it)
harness/engine/top.cpp:1: harness/engine includes harness/engine/tree/audit.h (harness/engine/tree is not below it)
harness/engine/up.cpp:1: harness/engine includes harness/cli/common.h (harness/cli is not below it)
harness/sandbox/env.cpp:1: reads the environment (getenv): only harness/cli/ may; pass the value down
reaper/os/env.cpp:1: reads the environment (secure_getenv): only harness/cli/ may; pass the value down
reaper/tree/env.cpp:1: reads the environment (environ): only harness/cli/ may; pass the value down"
[ "$(sort <<<"$out")" = "$expected" ] || fail "reported:
$out
expected:
$expected"

rm "$work/harness/engine/up.cpp" "$work/harness/engine/census/up.cpp" "$work/harness/engine/top.cpp" "$work/harness/sandbox/env.cpp" "$work/reaper/os/env.cpp" \
  "$work/reaper/tree/env.cpp"
out=$("$check" "$work") || fail "exit status $?, not 0, for a clean tree: $out"
[ -z "$out" ] || fail "output for a clean tree: $out"
echo "layers: $failures failed"
[ "$failures" -eq 0 ]
