#!/bin/sh
# An exec: reaper that first tries each way out of the sandbox that issue 17 found open as root,
# and says on stderr (kept in the case's evidence, reaper_steps) what came of each attempt:
# "escape WHAT: reached" or "escape WHAT: blocked (WHY)". It kills nothing itself: the exec:
# command that runs it does. Run outside the sandbox (escape_test.sh's negative control), every
# attempt reaches its target, which belongs to the test.
# RUNNER is the case runner's pid, 1 inside: its memory, fds and environment must be out of reach.
#   escape_reaper.sh CANARY_CGROUP CANARY_MARK RUNNER SOCKET... -- FILE...
cg=$1 mark=$2 runner=$3
shift 3

say() { echo "escape $1: $2" >&2; }
try() { # WHAT COMMAND...: runs COMMAND, reports it reached or why not
  what=$1
  shift
  if err=$("$@" 2>&1); then say "$what" reached; else say "$what" "blocked ($err)"; fi
}

# A host cgroup's cgroup.kill: the canary's group, in the host's hierarchy.
try "cgroup.kill $cg" sh -c 'printf 1 >"$0/cgroup.kill"' "$cg"

# The host's /proc, under the case's own: unmount it in a mount namespace of our own, then look
# for the canary's process.
try /proc unshare -m sh -c '
  umount -l /proc || exit 1
  found=$(grep -l -a -- "$0" /proc/[0-9]*/cmdline 2>/dev/null | head -n 1)
  [ -n "$found" ] && echo "the canary is $found" && exit 0
  echo "/proc unmounted, the canary not in it"
  exit 1' "$mark"

# The case runner, which decides the verdict: attach to it (it could then be made to say
# anything), read its environment, list its fds (the seccomp listener, the result pipe).
try "ptrace $runner" python3 -c '
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.ptrace(0x4206, int(sys.argv[1]), 0, 0) != 0:  # PTRACE_SEIZE, no stop
    sys.exit(os.strerror(ctypes.get_errno()))' "$runner"
try "environ $runner" sh -c 'cat "/proc/$0/environ" >/dev/null' "$runner"
try "fd $runner" ls "/proc/$runner/fd"

for sock; do
  shift
  [ "$sock" = -- ] && break
  try "socket $sock" perl -MIO::Socket::UNIX -e \
    'IO::Socket::UNIX->new(Type => SOCK_STREAM(), Peer => $ARGV[0]) or die "$!\n"' "$sock"
done

for file; do
  try "write $file" sh -c 'echo escaped >"$0"' "$file"
done
exit 0
