# Sourced by controls_test.sh, after lib/common.sh: how a control's declaration is checked. A
# declaration sets `shows` (the scenarios that show the control's defect, where it must be caught:
# any verdict but pass), `passes` (where it must pass) and, through `rule`, conditions each case
# must meet; run_control runs the control on those scenarios and checks each.
# shellcheck shell=bash disable=SC2016,SC2154 # jq's $names; bin, work, name and reaper: the caller's

shows=()
passes=()
rules=()
# rule RULE WHAT: RULE, a jq condition over one case of results.json (its fields; and
# sent_outside, its signals that reached outside the tree; stray, whether one was stray), must
# hold for every case; WHAT says what it asserts.
rule() { rules+=("$1" "$2"); }

# The kernel's trace (signals it generates, the lineage of its fork events) is there as root in
# the initial PID namespace; elsewhere a case must say it lacks that evidence.
traceable=0
if [ "$(id -u)" -eq 0 ] && grep -q tracefs /proc/filesystems &&
  [ "$(stat -Lc %i /proc/self/ns/pid)" -eq $((0xEFFFFFFC)) ]; then
  traceable=1
fi
export traceable
# A control that needs the kernel's trace to be told apart says so, as CTest's skip.
needs_trace() {
  [ "$traceable" -eq 1 ] && return
  echo "$name: skipped: it needs the kernel's fork events (root, tracefs, the initial PID namespace)"
  exit 77
}

# check_rule RULE WHAT [JQ-OPTION...]: the rule must hold for every case, and some case must be
# judged by it; each case where it does not is shown. A case of a PID race whose window did not
# open is skipped, which proves nothing either way. A rule holds where it gives one value, true.
check_rule() {
  local rule=$1 what=$2 bad
  shift 2
  if bad=$(json "$work/results.json" '
      def sent_outside: [.signals[] | select(.hit_outside)];
      def stray: any(.signals[]; .stray);
      [.cases[] | select(.verdict != "skipped" or (.race | not))] as $judged
      | ($judged[] | select([('"$rule"')] != [true])
        | "  \(.scenario): \(.verdict): \(.reason[:300])"),
        if $judged == [] then "  no case judged" else empty end' "$@") && [ -z "$bad" ]; then
    echo "ok: $name: $what"
  else
    [ -z "$bad" ] || printf '%s\n' "$bad"
    fail "$name: $what"
  fi
}

# run_control: the declared scenarios against the control, expecting pass (as a CI gate would):
# a broken control is a deviation (exit 1) — a control that passes the gate fails this test — and
# a correct one is not. Then each check of its declaration.
run_control() {
  local only=() s want=1 status ran declared
  for s in "${shows[@]}" "${passes[@]}"; do only+=(--scenario "$s"); done
  "$bin" run -q --expect-pass --reaper "$reaper" \
    "${only[@]}" --json "$work/results.json" >"$work/out" 2>&1
  status=$?
  [ ${#shows[@]} -gt 0 ] || want=0
  if [ ! -s "$work/results.json" ]; then
    echo "FAIL: $name: no results (exit $status)"
    sed 's/^/  /' "$work/out"
    exit 1
  fi
  if [ "$status" -ne "$want" ]; then
    fail "$name: the gate exited $status, not $want"
    sed 's/^/  /' "$work/out"
  else
    echo "ok: $name: the gate exited $want"
  fi

  # Every declared scenario ran, each once.
  ran=$(json "$work/results.json" '[.cases[].scenario] | sort | join(" ")')
  declared=$(printf '%s\n' "${shows[@]}" "${passes[@]}" | LC_ALL=C sort | paste -sd ' ')
  if [ "$ran" = "$declared" ]; then
    echo "ok: $name: ran on $declared"
  else
    fail "$name: ran on '$ran', declared '$declared'"
  fi
  [ ${#shows[@]} -eq 0 ] ||
    check_rule '(.scenario | IN($shows | split(" ")[]) | not) or .verdict != "pass"' \
      "caught in each scenario that shows its defect (${shows[*]})" --arg shows "${shows[*]}"
  [ ${#passes[@]} -eq 0 ] ||
    check_rule '(.scenario | IN($passes | split(" ")[]) | not) or .verdict == "pass"' \
      "passes where its defect does not show (${passes[*]})" --arg passes "${passes[*]}"
  local i
  for ((i = 0; i < ${#rules[@]}; i += 2)); do
    check_rule "${rules[i]}" "${rules[i + 1]}"
  done

  echo "$name: $failures failed"
  [ "$failures" -eq 0 ]
}
