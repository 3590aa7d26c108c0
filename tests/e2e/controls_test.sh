#!/usr/bin/env bash
# Negative controls: broken reapers (tests/controls/), each run on the scenarios that show its
# defect and asserted caught there, with the verdict its defect earns; and correct ones, asserted
# to pass. A harness change that lets one through fails this test. One control a call, so that
# CTest runs them side by side (tests/CMakeLists.txt registers every tests/controls/*.sh; one
# without a declaration below fails). How a declaration is checked: lib/controls.sh.
#   controls_test.sh BUILD_BIN_DIR SOURCE_DIR CONTROL
# shellcheck disable=SC2016 # jq's and perl's $names, in single quotes
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
. "$(dirname "$0")/lib/common.sh"
# shellcheck source-path=SCRIPTDIR source=lib/controls.sh
. "$(dirname "$0")/lib/controls.sh"
e2e_setup "$1" "$2"
controls=$src/tests/controls
name=$3

# Each control's declaration: `shows`, the scenarios that show its defect, where it must be
# caught (any verdict but pass); `passes`, where it must pass (a broken control that does nothing
# would be caught everywhere and prove nothing; a correct control passes everywhere it runs);
# `rule`, conditions (jq over one case of results.json) each case must meet, with what each
# asserts.
reaper="exec:sh $controls/$name.sh {pid} {pgid} {grace_s}"
case $name in
  kill-by-name)
    # A perl tree, a C one of 1,000 members (a fork per process would outlast the deadline), a
    # node one.
    shows=(plain-child wide-tree npm-dev-server)
    rule '.verdict == "bystander-hit" and any(sent_outside[]; any(.reached[]; .role | like("^sibling-")))' \
      "bystander-hit: the sibling agent's tree is killed by its program's name"
    ;;
  kill-by-name-proc-dir)
    shows=(plain-child deep-chain npm-dev-server)  # a perl tree, a C one, a node one
    rule '.verdict == "bystander-hit" and any(sent_outside[]; .call == "pidfd_send_signal" and
      (.target | like("^/proc directory of pid")) and any(.reached[]; .role | like("^sibling-")))' \
      "bystander-hit, and the ledger names the sibling its /proc-directory pidfd_send_signal reached"
    ;;
  freezes-bystanders)
    shows=(plain-child sibling-agent)
    rule '.verdict == "bystander-hit" and any(.bystanders_hit[]; .signal == "frozen")' \
      "bystander-hit: the bystanders it froze and left frozen, though no signal reached them"
    ;;
  kills-then-fails)
    shows=(plain-child reaper-inside-tree)
    rule '.verdict == "reaper-error" and (.reason | like("exited with status 3"))' \
      "reaper-error, as an exec: command and as the agent's own kill command alike"
    ;;
  stray-pid)
    shows=(plain-child setsid-escape)
    rule 'stray' "the ledger shows the signal to a pid where nothing was"
    ;;
  returns-early)
    shows=(plain-child setsid-escape)
    rule 'if .survivors != [] then .verdict == "leak"
      else .verdict == "late" and .late != [] and .reaper_left_running != [] end' \
      "late wherever the tree outlived the return (and named the helper left running), leak where it survived"
    rule '.scenario != "plain-child" or .verdict == "late"' \
      "late where the whole tree dies after the return"
    ;;
  sigterm-only)
    # npm-dev-server: its watcher left the group; npm forwards the SIGTERM to its shell.
    shows=(sigterm-ignorer leader-exits-first sigterm-ignorer-in-group blocked-sigterm
      npm-dev-server)
    # Its SIGTERM does end a tree that does not ignore it.
    passes=(plain-child)
    rule '.scenario == "plain-child" or .verdict == "leak"' \
      "leak wherever a member ignores SIGTERM or left the group"
    rule 'any(.signals[]; .sender.kind == "reaper" and (.sender.role | like("npm"))) | not' \
      "npm's own kill() of its shell is the tree's (the agent's), never the reaper's"
    ;;
  stale-snapshot)
    shows=(plain-child grandchildren pid-reuse)
    rule '.scenario == "pid-reuse" or stray' \
      "its stale SIGKILL, sent after a member died of the SIGTERM, to a pid where nothing was"
    rule '.scenario != "pid-reuse" or .verdict == "bystander-hit"' \
      "hits the decoy on a recycled pid"
    ;;
  group-only)
    # pgid-reuse: its holder left the session and ignores SIGTERM until the harness, once the
    # decoy is placed, ends it. The group kill never reaches it; it passed before.
    shows=(setsid-escape setpgid-escape npm-dev-server double-fork-daemon pgid-reuse)
    # Its group kill does end a tree that stays in the group.
    passes=(plain-child)
    rule '.scenario == "plain-child" or .verdict == "leak"' \
      "leak wherever a member left the agent's group"
    rule '.scenario != "pgid-reuse" or any(.survivors[]; .role == "holder")' \
      "the race's holder, ended by the harness and never by the reaper, is a survivor"
    ;;
  kill-everything)
    shows=(plain-child grandchildren)
    rule '.verdict == "bystander-hit" and sent_outside != []' \
      "bystander-hit, with the kill(-1) in the ledger"
    ;;
  signals-caller)
    # It finds its caller with ps: not in no-ps or busybox-ps (whose ps has no -p).
    shows=(plain-child grandchildren)
    rule '.verdict == "bystander-hit" and any(sent_outside[]; any(.reached[]; .role == "reaper host"))' \
      "bystander-hit: the reaper host, its caller, was signalled"
    ;;
  kills-case-runner)
    shows=(plain-child grandchildren)
    rule '.verdict == "bystander-hit" and any(sent_outside[]; any(.reached[]; .role == "case runner"))' \
      "bystander-hit: the case runner was signalled, and the verdict says so"
    rule '.survivors == [] and (any(.signals[]; .result | like("still under way")) | not)' \
      "the members its group kill ended are no survivors, and that kill was not held"
    ;;
  cgroup-kill-everything)
    shows=(plain-child grandchildren)
    # Its signals are the kernel's, not a system call's: as root in the initial PID namespace
    # the tracepoint names the write that sent them (sender and all); elsewhere the case must say
    # it lacks that evidence.
    rule '.verdict == "bystander-hit" and (
      any(.signals[]; .kernel and .call == "kernel: cgroup.kill" and .hit_outside and
        (.sender.pid // 0) != 0) or
      $ENV.traceable != "1" and any(.missing_evidence[]; like("signals the kernel generates")))' \
      "bystander-hit, the cgroup.kill that hit them in the ledger with its sender"
    ;;
  freezes-and-forgets)
    shows=(plain-child grandchildren)
    rule '.survivors != []' "the frozen tree survives"
    ;;
  ptraces-everyone)
    # Harm with no signal (issue 41): a ptrace stop that ends as the tracer exits.
    shows=(plain-child grandchildren npm-dev-server)
    rule '.verdict == "bystander-hit" and any(.signals[]; .call == "ptrace" and
      .signal == "PTRACE_INTERRUPT" and .hit_outside)' \
      "bystander-hit, with its PTRACE_INTERRUPT of a bystander in the ledger"
    ;;
  marks-bystanders)
    # Harm with no signal (issue 41): attributes left changed.
    shows=(plain-child grandchildren npm-dev-server)
    rule '.verdict == "bystander-hit" and
      any(.bystanders_hit[]; .signal | like("^oom_score_adj changed: 0 \\S+ 1000$")) and
      any(.bystanders_hit[]; .signal | like("^cgroup changed: .*marked-by-control"))' \
      "bystander-hit, each attribute it left changed named with its old and new value"
    ;;
  stop-then-kill)
    # Correct, on trees that stay below their agent (a ps walk finds them). Each of its SIGKILLs
    # leaves a zombie whose parent is stopped and reaps nothing until the tree's last process is
    # gone: a ledger that held its next call until that reaping failed it. Zombies a generation
    # deep, 200 deep, 999 under one parent, under members that fork as they die, and a node tree.
    passes=(grandchildren deep-chain wide-tree fork-storm node-detached)
    rule 'any(.signals[]; .result | like("still under way")) | not' \
      "no call held to the ledger's bound: a zombie whose parent is stopped is settled"
    ;;
  stops-agent)
    # The agent of a package's scenario (npm run dev) is a member like a fixture's: left
    # stopped, it survived. Taken for the reaper's own process, it passed.
    shows=(plain-child npm-dev-server vite-dev-server)
    rule '.verdict == "leak" and any(.survivors[]; .role == "agent")' \
      "leak, the stopped agent among the survivors"
    ;;
  kills-zombies-twice)
    # Correct: its second SIGKILL to each member reaches a zombie whose parent it keeps stopped,
    # an id that cannot be reused; judged stray, a correct reaper failed.
    passes=(plain-child grandchildren)
    rule 'stray | not' "no signal is stray: a zombie under a stopped parent still holds its id"
    rule 'any(.signals[]; .pinned)' \
      "the ledger saw the second SIGKILLs, to zombies, and took them as pinned"
    ;;
  kills-thread-ids)
    # Correct: kill() of a thread id signals its whole process. Taken for a dead id (pidfd_open
    # of a thread id fails), each was stray and its member unreached.
    passes=(plain-child grandchildren thread-forked-child)
    rule 'stray | not' "no signal is stray: a thread's id names its live process"
    rule '.scenario != "thread-forked-child" or any(.signals[]; (.target | like("^pid \\d+$")) and
      ((.target | ltrimstr("pid ") | tonumber) as $id
        | any(.reached[]; .pid != $id and .kind == "member" and .alive)))' \
      "a kill of a thread's id (not its leader's) reached its live member"
    ;;
  pidns-helper)
    # Correct: its kill(-1) is sent in a PID namespace of the helper's own, where it reaches
    # nothing of the case; resolved as reaching the whole sandbox, it was taken for a
    # bystander-hit.
    passes=(plain-child grandchildren)
    rule 'any(.signals[]; .target == "every process" and (.hit_outside | not))' \
      "its kill(-1) resolved in the helper's own PID namespace"
    ;;
  detached-helper)
    # Correct: its helper detaches into a session of its own and outlives the command. The
    # kernel's fork events show it is the reaper's; before, it was a leak of the tree.
    needs_trace
    passes=(plain-child grandchildren)
    rule '.reaper_left_running != [] and .survivors == []' \
      "its detached helper is reported as left running by the reaper, not as a survivor"
    ;;
  supervisor-leaves-helper)
    # A supervise: supervisor whose helper signals the reaper host once the supervisor has
    # exited, from the tree's session with its parent gone. Before, it was taken for the tree
    # and its signal did not count (the host's death was a reaper-error).
    needs_trace
    reaper="supervise:sh $controls/$name.sh"
    shows=(plain-child grandchildren)
    rule '.verdict == "bystander-hit" and any(sent_outside[]; .sender.kind == "reaper" and
      any(.reached[]; .role == "reaper host"))' \
      "bystander-hit: its helper's signal to the reaper host counts as the reaper's"
    ;;
  kills-again-later)
    # Its helper kills the agent's freed pid 150 ms after the command exited, once the tree is
    # all dead. Before, the case ended with the tree and never saw the call: a pass everywhere.
    needs_trace
    shows=(plain-child grandchildren)
    rule '.verdict == "stray-signal" and any(.signals[]; .stray and .at_ms >= 100)' \
      "stray-signal: the ledger holds the helper's kill by the stale pid, sent after the tree died"
    ;;
  kills-after-exit)
    # Its helper kills the tree only once the command has exited. Before, the kill counted as
    # on time whenever the member died before the harness had noted the return: a pass in 1 to
    # 4 runs of 20; the ledger now holds such a call until the members then alive are noted.
    needs_trace
    shows=(plain-child grandchildren)
    rule '.verdict == "late" and .late != []' \
      "late, never a pass: a kill sent after the command exited comes after the return"
    ;;
  *)
    echo "FAIL: $name: no declaration in $0 of the scenarios that show its defect"
    exit 1
    ;;
esac

run_control
