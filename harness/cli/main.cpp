#include <linux/close_range.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "harness/cli/cli.h"

int main(int argc, char** argv) {
  // What reapcheck inherited beyond stdin, stdout and stderr (a CI runner's pipes, a shell's
  // redirections) is not its children's business: no agent, reaper or supervisor gets it. The
  // descriptors reapcheck opens itself are close-on-exec already; those it hands on purpose
  // (the readiness pipe) are set up in the child.
  ::syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC);
  return reapcheck::run_cli(argc, argv);
}
