// PID 1's duty inside the sandbox: reap every child the moment it exits, as an init does, so
// that orphans' pids are freed as they would be on a real machine. The exit status of the few
// children the runner cares about (the reaper host, bystanders, decoys) is kept.
#pragma once

#include <sys/types.h>

#include <optional>

namespace reapcheck::init {

// Installs the SIGCHLD handler. Call once, in PID 1.
void start_reaping();

// Remembers `pid`'s exit status when it is reaped. Register a child while SIGCHLD is blocked
// from before the fork (see BlockChildSignals) so an early exit cannot be missed.
void watch(pid_t pid);

struct Exit {
  int code;    // CLD_EXITED, CLD_KILLED, CLD_DUMPED
  int status;  // exit status or signal number
};

// The watched child's exit, once it has been reaped.
std::optional<Exit> exit_of(pid_t pid);

// Blocks SIGCHLD for the scope: fork, then watch(), then unblock.
class BlockChildSignals {
 public:
  BlockChildSignals();
  ~BlockChildSignals();
  BlockChildSignals(const BlockChildSignals&) = delete;
  BlockChildSignals& operator=(const BlockChildSignals&) = delete;
};

// For a forked child: SIGCHLD back to default, every signal unblocked, and dumpable again.
void reset_in_child();

// For a child about to exec, forked or sharing PID 1's memory (reaper::spawn_shared): SIGCHLD
// back to default and every signal unblocked. Dumpability is the memory map's, which the exec
// replaces with a dumpable one; set here, it would be the shared map's, PID 1's.
void reset_before_exec();

}  // namespace reapcheck::init
