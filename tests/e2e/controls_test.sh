#!/usr/bin/env bash
# Negative controls: broken reapers (tests/controls/), each run on the scenarios that show its
# defect and asserted caught there, with the verdict its defect earns; and two correct ones,
# asserted to pass. A harness change that lets one through fails this test. One control a call,
# so that CTest runs them side by side (tests/CMakeLists.txt registers every tests/controls/*.sh;
# one without a declaration below fails).
#   controls_test.sh BUILD_BIN_DIR SOURCE_DIR CONTROL
set -uo pipefail
bin=$1/reapcheck
controls=$2/tests/controls
name=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# Helpers for the rules, in perl over $c (one case; its fields are those of results.json).
sent_outside='grep { $_->{hit_outside} } @{ $c->{signals} }'
stray='grep { $_->{stray} } @{ $c->{signals} }'

# Each control's declaration: `shows`, the scenarios that show its defect, where it must be
# caught (any verdict but pass); `passes`, where it must pass (a broken control that does nothing
# would be caught everywhere and prove nothing; a correct control passes everywhere it runs);
# `rules`, conditions (perl over $c) each case must meet, with what each asserts.
shows=()
passes=()
rules=()
reaper="exec:sh $controls/$name.sh {pid} {pgid} {grace_s}"
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
rule() { rules+=("$1" "$2"); }
case $name in
  kill-by-name)
    # A perl tree, a C one of 1,000 members (a fork per process would outlast the deadline), a
    # node one.
    shows=(plain-child wide-tree npm-dev-server)
    rule "\$c->{verdict} eq 'bystander-hit' &&
      grep { grep { \$_->{role} =~ /^sibling-/ } @{ \$_->{reached} } } $sent_outside" \
      "bystander-hit: the sibling agent's tree is killed by its program's name"
    ;;
  kill-by-name-proc-dir)
    shows=(plain-child deep-chain npm-dev-server)  # a perl tree, a C one, a node one
    rule "\$c->{verdict} eq 'bystander-hit' &&
      grep { \$_->{call} eq 'pidfd_send_signal' && \$_->{target} =~ m{^/proc directory of pid} &&
        grep { \$_->{role} =~ /^sibling-/ } @{ \$_->{reached} } } $sent_outside" \
      "bystander-hit, and the ledger names the sibling its /proc-directory pidfd_send_signal reached"
    ;;
  freezes-bystanders)
    shows=(plain-child sibling-agent)
    rule "\$c->{verdict} eq 'bystander-hit' &&
      grep { \$_->{signal} eq 'frozen' } @{ \$c->{bystanders_hit} }" \
      "bystander-hit: the bystanders it froze and left frozen, though no signal reached them"
    ;;
  kills-then-fails)
    shows=(plain-child reaper-inside-tree)
    rule "\$c->{verdict} eq 'reaper-error' && \$c->{reason} =~ /exited with status 3/" \
      "reaper-error, as an exec: command and as the agent's own kill command alike"
    ;;
  stray-pid)
    shows=(plain-child setsid-escape)
    rule "$stray" "the ledger shows the signal to a pid where nothing was"
    ;;
  returns-early)
    shows=(plain-child setsid-escape)
    rule "@{ \$c->{survivors} } ? \$c->{verdict} eq 'leak'
      : \$c->{verdict} eq 'late' && @{ \$c->{late} } && @{ \$c->{reaper_left_running} }" \
      "late wherever the tree outlived the return (and named the helper left running), leak where it survived"
    rule "\$c->{scenario} ne 'plain-child' || \$c->{verdict} eq 'late'" \
      "late where the whole tree dies after the return"
    ;;
  sigterm-only)
    # npm-dev-server: its watcher left the group; npm forwards the SIGTERM to its shell.
    shows=(sigterm-ignorer leader-exits-first sigterm-ignorer-in-group blocked-sigterm
      npm-dev-server)
    # Its SIGTERM does end a tree that does not ignore it.
    passes=(plain-child)
    rule "\$c->{scenario} eq 'plain-child' || \$c->{verdict} eq 'leak'" \
      "leak wherever a member ignores SIGTERM or left the group"
    rule "!grep { \$_->{sender}{kind} eq 'reaper' && \$_->{sender}{role} =~ /npm/ } @{ \$c->{signals} }" \
      "npm's own kill() of its shell is the tree's (the agent's), never the reaper's"
    ;;
  stale-snapshot)
    shows=(plain-child grandchildren pid-reuse)
    rule "\$c->{scenario} eq 'pid-reuse' || $stray" \
      "its stale SIGKILL, sent after a member died of the SIGTERM, to a pid where nothing was"
    rule "\$c->{scenario} ne 'pid-reuse' || \$c->{verdict} eq 'bystander-hit'" \
      "hits the decoy on a recycled pid"
    ;;
  group-only)
    # pgid-reuse: its holder left the session and ignores SIGTERM until the harness, once the
    # decoy is placed, ends it. The group kill never reaches it; it passed before.
    shows=(setsid-escape setpgid-escape npm-dev-server double-fork-daemon pgid-reuse)
    # Its group kill does end a tree that stays in the group.
    passes=(plain-child)
    rule "\$c->{scenario} eq 'plain-child' || \$c->{verdict} eq 'leak'" \
      "leak wherever a member left the agent's group"
    rule "\$c->{scenario} ne 'pgid-reuse' || grep { \$_->{role} eq 'holder' } @{ \$c->{survivors} }" \
      "the race's holder, ended by the harness and never by the reaper, is a survivor"
    ;;
  kill-everything)
    shows=(plain-child grandchildren)
    rule "\$c->{verdict} eq 'bystander-hit' && ($sent_outside)" \
      "bystander-hit, with the kill(-1) in the ledger"
    ;;
  signals-caller)
    # It finds its caller with ps: not in no-ps or busybox-ps (whose ps has no -p).
    shows=(plain-child grandchildren)
    rule "\$c->{verdict} eq 'bystander-hit' &&
      grep { grep { \$_->{role} eq 'reaper host' } @{ \$_->{reached} } } $sent_outside" \
      "bystander-hit: the reaper host, its caller, was signalled"
    ;;
  kills-case-runner)
    shows=(plain-child grandchildren)
    rule "\$c->{verdict} eq 'bystander-hit' &&
      grep { grep { \$_->{role} eq 'case runner' } @{ \$_->{reached} } } $sent_outside" \
      "bystander-hit: the case runner was signalled, and the verdict says so"
    rule "!@{ \$c->{survivors} } && !grep { \$_->{result} =~ /still under way/ } @{ \$c->{signals} }" \
      "the members its group kill ended are no survivors, and that kill was not held"
    ;;
  cgroup-kill-everything)
    shows=(plain-child grandchildren)
    # Its signals are the kernel's, not a system call's: as root in the initial PID namespace
    # the tracepoint names the write that sent them (sender and all); elsewhere the case must say
    # it lacks that evidence.
    rule "\$c->{verdict} eq 'bystander-hit' && (
      grep({ \$_->{kernel} && \$_->{call} eq 'kernel: cgroup.kill' && \$_->{hit_outside} &&
             \$_->{sender}{pid} } @{ \$c->{signals} }) ||
      !\$ENV{traceable} && grep({ /signals the kernel generates/ } @{ \$c->{missing_evidence} }))" \
      "bystander-hit, the cgroup.kill that hit them in the ledger with its sender"
    ;;
  freezes-and-forgets)
    shows=(plain-child grandchildren)
    rule "@{ \$c->{survivors} }" "the frozen tree survives"
    ;;
  ptraces-everyone)
    # Harm with no signal (issue 41): a ptrace stop that ends as the tracer exits.
    shows=(plain-child grandchildren npm-dev-server)
    rule "\$c->{verdict} eq 'bystander-hit' && grep { \$_->{call} eq 'ptrace' &&
      \$_->{signal} eq 'PTRACE_INTERRUPT' && \$_->{hit_outside} } @{ \$c->{signals} }" \
      "bystander-hit, with its PTRACE_INTERRUPT of a bystander in the ledger"
    ;;
  marks-bystanders)
    # Harm with no signal (issue 41): attributes left changed.
    shows=(plain-child grandchildren npm-dev-server)
    rule "\$c->{verdict} eq 'bystander-hit' &&
      grep({ \$_->{signal} =~ /^oom_score_adj changed: 0 \\S+ 1000$/ } @{ \$c->{bystanders_hit} }) &&
      grep({ \$_->{signal} =~ /^cgroup changed: .*marked-by-control/ } @{ \$c->{bystanders_hit} })" \
      "bystander-hit, each attribute it left changed named with its old and new value"
    ;;
  stop-then-kill)
    # Correct, on trees that stay below their agent (a ps walk finds them). Each of its SIGKILLs
    # leaves a zombie whose parent is stopped and reaps nothing until the tree's last process is
    # gone: a ledger that held its next call until that reaping failed it. Zombies a generation
    # deep, 200 deep, 999 under one parent, under members that fork as they die, and a node tree.
    passes=(grandchildren deep-chain wide-tree fork-storm node-detached)
    rule "!grep { \$_->{result} =~ /still under way/ } @{ \$c->{signals} }" \
      "no call held to the ledger's bound: a zombie whose parent is stopped is settled"
    ;;
  stops-agent)
    # The agent of a package's scenario (npm run dev) is a member like a fixture's: left
    # stopped, it survived. Taken for the reaper's own process, it passed.
    shows=(plain-child npm-dev-server vite-dev-server)
    rule "\$c->{verdict} eq 'leak' && grep { \$_->{role} eq 'agent' } @{ \$c->{survivors} }" \
      "leak, the stopped agent among the survivors"
    ;;
  kills-zombies-twice)
    # Correct: its second SIGKILL to each member reaches a zombie whose parent it keeps stopped,
    # an id that cannot be reused; judged stray, a correct reaper failed.
    passes=(plain-child grandchildren)
    rule "!($stray)" "no signal is stray: a zombie under a stopped parent still holds its id"
    rule "grep { \$_->{pinned} } @{ \$c->{signals} }" \
      "the ledger saw the second SIGKILLs, to zombies, and took them as pinned"
    ;;
  kills-thread-ids)
    # Correct: kill() of a thread id signals its whole process. Taken for a dead id (pidfd_open
    # of a thread id fails), each was stray and its member unreached.
    passes=(plain-child grandchildren thread-forked-child)
    rule "!($stray)" "no signal is stray: a thread's id names its live process"
    rule "\$c->{scenario} ne 'thread-forked-child' || grep { \$_->{target} =~ /^pid (\\d+)\$/ &&
      grep { \$_->{pid} != \$1 && \$_->{kind} eq 'member' && \$_->{alive} } @{ \$_->{reached} } }
      @{ \$c->{signals} }" \
      "a kill of a thread's id (not its leader's) reached its live member"
    ;;
  pidns-helper)
    # Correct: its kill(-1) is sent in a PID namespace of the helper's own, where it reaches
    # nothing of the case; resolved as reaching the whole sandbox, it was taken for a
    # bystander-hit.
    passes=(plain-child grandchildren)
    rule "grep { \$_->{target} eq 'every process' && !\$_->{hit_outside} } @{ \$c->{signals} }" \
      "its kill(-1) resolved in the helper's own PID namespace"
    ;;
  detached-helper)
    # Correct: its helper detaches into a session of its own and outlives the command. The
    # kernel's fork events show it is the reaper's; before, it was a leak of the tree.
    needs_trace
    passes=(plain-child grandchildren)
    rule "@{ \$c->{reaper_left_running} } && !@{ \$c->{survivors} }" \
      "its detached helper is reported as left running by the reaper, not as a survivor"
    ;;
  supervisor-leaves-helper)
    # A supervise: supervisor whose helper signals the reaper host once the supervisor has
    # exited, from the tree's session with its parent gone. Before, it was taken for the tree
    # and its signal did not count (the host's death was a reaper-error).
    needs_trace
    reaper="supervise:sh $controls/$name.sh"
    shows=(plain-child grandchildren)
    rule "\$c->{verdict} eq 'bystander-hit' && grep { \$_->{sender}{kind} eq 'reaper' &&
      grep { \$_->{role} eq 'reaper host' } @{ \$_->{reached} } } $sent_outside" \
      "bystander-hit: its helper's signal to the reaper host counts as the reaper's"
    ;;
  kills-again-later)
    # Its helper kills the agent's freed pid 150 ms after the command exited, once the tree is
    # all dead. Before, the case ended with the tree and never saw the call: a pass everywhere.
    needs_trace
    shows=(plain-child grandchildren)
    rule "\$c->{verdict} eq 'stray-signal' && grep { \$_->{stray} && \$_->{at_ms} >= 100 } @{ \$c->{signals} }" \
      "stray-signal: the ledger holds the helper's kill by the stale pid, sent after the tree died"
    ;;
  kills-after-exit)
    # Its helper kills the tree only once the command has exited. Before, the kill counted as
    # on time whenever the member died before the harness had noted the return: a pass in 1 to
    # 4 runs of 20; the ledger now holds such a call until the members then alive are noted.
    needs_trace
    shows=(plain-child grandchildren)
    rule "\$c->{verdict} eq 'late' && @{ \$c->{late} }" \
      "late, never a pass: a kill sent after the command exited comes after the return"
    ;;
  *)
    echo "FAIL: $name: no declaration in $0 of the scenarios that show its defect"
    exit 1
    ;;
esac

# The declared scenarios against the control, expecting pass (as a CI gate would): a broken
# control is a deviation (exit 1) — a control that passes the gate fails this test — and a
# correct one is not.
only=()
for s in "${shows[@]}" "${passes[@]}"; do only+=(--scenario "$s"); done
"$bin" run -q --expect-pass --reaper "$reaper" \
  "${only[@]}" --json "$work/results.json" >"$work/out" 2>&1
status=$?
want=1
[ ${#shows[@]} -gt 0 ] || want=0
if [ ! -s "$work/results.json" ]; then
  echo "FAIL: $name: no results (exit $status)"
  sed 's/^/  /' "$work/out"
  exit 1
fi
if [ "$status" -ne "$want" ]; then
  echo "FAIL: $name: the gate exited $status, not $want"
  sed 's/^/  /' "$work/out"
  failures=$((failures + 1))
else
  echo "ok: $name: the gate exited $want"
fi

# check RULE WHAT: the rule must hold for every case, and some case must be judged by it. A case
# of a PID race whose window did not open is skipped, which proves nothing either way.
check() {
  if perl -CO -MJSON::PP -e '
    my ($file, $rule) = @ARGV;
    my $r = decode_json(do { local $/; open my $f, "<", $file or die; <$f> });
    my ($bad, $judged) = (0, 0);
    for my $c (@{ $r->{cases} }) {
      next if $c->{verdict} eq "skipped" && $c->{race};
      $judged++;
      my $ok = eval $rule;
      die "rule: $@" if $@;
      next if $ok;
      $bad++;
      print "  $c->{scenario}: $c->{verdict}: " . substr($c->{reason}, 0, 300) . "\n";
    }
    print "  no case judged\n" unless $judged;
    exit($bad || !$judged ? 1 : 0);
  ' "$work/results.json" "$1"; then
    echo "ok: $name: $2"
  else
    echo "FAIL: $name: $2"
    failures=$((failures + 1))
  fi
}

# Every declared scenario ran, each once.
ran=$(perl -MJSON::PP -e '
  my $r = decode_json(do { local $/; open my $f, "<", $ARGV[0] or die; <$f> });
  print join " ", sort map { $_->{scenario} } @{ $r->{cases} }' "$work/results.json")
declared=$(printf '%s\n' "${shows[@]}" "${passes[@]}" | LC_ALL=C sort | paste -sd ' ')
if [ "$ran" = "$declared" ]; then
  echo "ok: $name: ran on $declared"
else
  echo "FAIL: $name: ran on '$ran', declared '$declared'"
  failures=$((failures + 1))
fi
shows_re=$(IFS='|' && echo "${shows[*]}")
passes_re=$(IFS='|' && echo "${passes[*]}")
[ ${#shows[@]} -eq 0 ] ||
  check "\$c->{scenario} !~ /^($shows_re)\$/ || \$c->{verdict} ne 'pass'" \
    "caught in each scenario that shows its defect (${shows[*]})"
[ ${#passes[@]} -eq 0 ] ||
  check "\$c->{scenario} !~ /^($passes_re)\$/ || \$c->{verdict} eq 'pass'" \
    "passes where its defect does not show (${passes[*]})"
for ((i = 0; i < ${#rules[@]}; i += 2)); do
  check "${rules[i]}" "${rules[i + 1]}"
done

echo "$name: $failures failed"
[ "$failures" -eq 0 ]
