// What the tree stage reads of the readiness channel (readiness_channel.h): each line a member
// announced, with the pid the kernel says sent it. ReadinessChannel is the real one; a unit test
// gives its own, so that build_tree runs with no socket and no process.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>

#include "harness/support/line_reader.h"

namespace reapcheck {

class Announcements {
 public:
  struct Message {
    LineReader::Status status;
    std::string line;
    pid_t sender = 0;  // in the runner's PID namespace
  };

  virtual ~Announcements() = default;

  // The next line, or why none came before `deadline` (timeout, or EOF: every writer is gone).
  virtual Message next(std::chrono::steady_clock::time_point deadline) = 0;
};

}  // namespace reapcheck
