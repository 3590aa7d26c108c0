// Ctrl-C, SIGTERM and SIGHUP as events: blocked and read from a signalfd, so a run that is
// interrupted can end its sandbox and clean up instead of dying mid-case.
#pragma once

#include <stdexcept>

namespace reapcheck {

class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(int sig);
  int signal() const { return sig_; }

 private:
  int sig_;
};

// Blocks the signals and opens the signalfd; idempotent. Children must unblock them
// (see unblock_interrupts) before they exec or run a case.
void watch_interrupts();
void unblock_interrupts();

// The signalfd, or -1 when interrupts are not being watched.
int interrupt_fd();

// Throws Interrupted when a watched signal is pending.
void throw_if_interrupted();

}  // namespace reapcheck
