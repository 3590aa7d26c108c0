// A process population of a chosen size, for measuring snapshots: idle children that wait on
// a pipe, ended together by closing it and reaped before the destructor returns.
#pragma once

#include <sys/types.h>

#include <vector>

#include "reaper/os/unique_fd.h"

namespace reapcheck {

class Population {
 public:
  // Adds children until /proc lists `total` processes (none when it already does).
  explicit Population(int total);
  ~Population();
  Population(const Population&) = delete;
  Population& operator=(const Population&) = delete;

 private:
  std::vector<pid_t> children_;
  reaper::UniqueFd hold_;  // the write end: its close is every child's cue to exit
};

}  // namespace reapcheck
