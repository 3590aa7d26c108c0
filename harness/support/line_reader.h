// Reads newline-terminated lines from a pipe with a deadline: the one way the harness waits for
// fixtures and the reaper host, so every wait is bounded and none is a sleep.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace reapcheck {

class LineReader {
 public:
  explicit LineReader(int fd) : fd_(fd) {}

  enum class Status { line, eof, timeout };
  struct Result {
    Status status;
    std::string line;  // without the newline
  };

  Result next(std::chrono::steady_clock::time_point deadline);

 private:
  int fd_;
  std::string buffer_;
};

}  // namespace reapcheck
