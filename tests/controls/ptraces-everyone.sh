#!/bin/sh
# Broken on purpose: stops every other process it can see with ptrace (PTRACE_SEIZE, then
# PTRACE_INTERRUPT) — the harm of a SIGSTOP, with no signal sent — then kills the agent's group,
# which ends the tree, and lets them go as it exits. Only a record of the ptrace calls shows it.
. "$(dirname "$0")/../../fixtures/reapers/guard.sh"
perl -e '
  my ($seize, $interrupt) = (0x4206, 0x4207);
  my %mine = ($$ => 1, getppid() => 1, 1 => 1);
  opendir(my $d, "/proc") or die;
  for my $pid (grep { /^\d+$/ && !$mine{$_} } readdir $d) {
    syscall(101, $seize, $pid + 0, 0, 0) == 0 and syscall(101, $interrupt, $pid + 0, 0, 0);
  }
  kill "KILL", -$ARGV[0];
' "$2"
exit 0
