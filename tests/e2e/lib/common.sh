# Sourced by the e2e tests of the CLI (cli_*_test.sh), the negative controls (controls_test.sh)
# and your own tree (own_tree_*_test.sh): the binary under test, a scratch folder, a command's
# exit status and output checked, the JSON reports read with jq (one reader, these definitions),
# what a run left running on the host.
#   . "$(dirname "$0")/lib/common.sh" && e2e_setup BUILD_BIN_DIR SOURCE_DIR
# shellcheck shell=bash disable=SC2016,SC2034 # jq's $names in single quotes; what is set for the caller
# shellcheck source-path=SCRIPTDIR/.. source=failures.sh
. "${BASH_SOURCE[0]%/*}/../failures.sh"

# e2e_setup BUILD_BIN_DIR SOURCE_DIR: $bin (the reapcheck built there) and $src, absolute; $work,
# a scratch folder removed when the test exits. Without jq, the test fails at once, saying so.
e2e_setup() {
  command -v jq >/dev/null || {
    echo "FAIL: jq is not installed (Debian package jq): scripts/setup.sh --tests installs it" >&2
    exit 1
  }
  bin=$(cd "$1" && pwd)/reapcheck
  src=$(cd "$2" && pwd)
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
}

# check NAME STATUS: a check that held (STATUS 0) counts in $passed; one that did not is a
# failure (failures.sh), shown with the last command's output ($work/out, $work/err).
passed=0
check() {
  if [ "$2" -eq 0 ]; then
    passed=$((passed + 1))
  else
    fail "$1"
    [ -f "$work/out" ] && sed 's/^/  out: /' "$work/out" >&2
    [ -f "$work/err" ] && sed 's/^/  err: /' "$work/err" >&2
  fi
}

# run EXPECTED-STATUS COMMAND...: stdout in $work/out, stderr in $work/err; fails, and says so in
# $work/err, unless COMMAND exits EXPECTED-STATUS.
run() {
  local want=$1
  shift
  "$@" >"$work/out" 2>"$work/err"
  local got=$?
  [ "$got" -eq "$want" ] || echo "exit status $got, wanted $want" >>"$work/err"
  return $((got != want))
}

# The JSON reports (results.json, list --json) are read with jq, each filter given these:
#   must(COND; WHY)  . where COND holds, else an error that says WHY (on stderr, jq's status 5)
#   by(KEY)          an array as an object keyed by KEY: .cases | by(.reaper) | .pgroup
#   like(RE)         a string RE matches; false for null, as for what is not a string
jq_defs='
def must(cond; why): if cond then . else error(why) end;
def by(key): map({(key): .}) | add;
def like(re): type == "string" and test(re);
'
# json FILE FILTER [JQ-OPTION...]: FILTER's values over FILE, one a line, strings raw.
json() {
  local file=$1 filter=$2
  shift 2
  jq -r "$@" "$jq_defs$filter" "$file"
}
# json_holds FILE FILTER [JQ-OPTION...]: succeeds when FILTER's last value over FILE is neither
# false nor null; when it is, or there is none, or a must() fails (saying why on stderr), fails.
json_holds() {
  local file=$1 filter=$2
  shift 2
  jq -e "$@" "$jq_defs$filter" "$file" >/dev/null
}

# running_with TEXT: each process on the host whose argv holds TEXT, "/proc/PID ARGV" a line.
# Read with builtins only, so the look itself never matches.
running_with() {
  local f args IFS=' '
  for f in /proc/[0-9]*/cmdline; do
    mapfile -d '' args 2>/dev/null <"$f" || continue
    [[ "${args[*]}" != *"$1"* ]] || echo "${f%/cmdline} ${args[*]}"
  done
}

# catalog: $builtin, the reaper ids, and $presets, as `list --json` lists them: no test names
# them by hand.
catalog() {
  "$bin" list --json >"$work/list.json"
  mapfile -t builtin < <(json "$work/list.json" '.reapers[].id')
  mapfile -t presets < <(json "$work/list.json" '.presets[].id')
}

# interrupt_at PREFIX PID FIFO: reads FIFO (the run's stderr) to the first line starting with
# PREFIX ("[1/2] ": a case finished), sends PID SIGINT and waits for it; the line in $first, the
# run's exit status in $status. Synchronised on the run's own progress line, never on time.
interrupt_at() {
  local line
  exec 3<"$3"
  first=
  while read -r line <&3; do
    case "$line" in "$1"*) first=$line && break ;; esac
  done
  kill -INT "$2"
  wait "$2"
  status=$?
  exec 3<&-
}
