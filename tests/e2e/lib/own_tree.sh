# Sourced by the tests of your own tree (own_tree_test.sh, own_tree_commands_test.sh), after
# lib/common.sh: a project of tests/projects/ copied, its folder's state, reproduce run in it with
# the folder checked unchanged and nothing left running, and what the output says.
# shellcheck shell=bash disable=SC2034,SC2154 # rc is for the caller; bin, src, work: e2e_setup's

# A copy of tests/projects/NAME in $work: what the test runs and checks.
project() {
  cp -a "$src/tests/projects/$1" "$work/$1"
  echo "$work/$1"
}

# Every file's path, size, mode, time and content hash: "as it was" means this is unchanged.
state() {
  (cd "$1" && find . -printf '%p %s %m %T@\n' | sort && find . -type f -exec sha256sum {} + | sort)
}

# Fails for each process on the host that still names PATH in its argv.
nothing_left() {
  local left
  while IFS= read -r left; do
    fail "left running on the host: $left"
  done < <(running_with "$1")
}

# The verdict `reproduce` gave REAPER, from its summary.
verdict() {
  awk -v r="$2" '/^Summary of this run/ {s = 1; next} s && $1 == r {print $2; exit}' "$1"
}

expect_verdict() {  # FILE REAPER VERDICT
  local got
  got=$(verdict "$1" "$2")
  [ "$got" = "$3" ] || fail "$2: verdict '$got', expected '$3' (output: $1)"
}

expect_in() {  # FILE TEXT
  grep -qF -- "$2" "$1" || fail "'$2' not in $1"
}

# reproduce on PROJECT with ARGS...; output in $work/out, exit status in $rc; the folder checked.
reproduce() {
  local dir=$1
  shift
  local before
  before=$(state "$dir")
  (cd "$dir" && "$bin" reproduce "$@") >"$work/out" 2>&1
  rc=$?
  [ "$(state "$dir")" = "$before" ] || fail "$dir changed under reproduce $*"
  nothing_left "$dir"
  cat "$work/out"
}
