#include "harness/model/result.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace reapcheck {

std::string ProcessRecord::command_line() const {
  return fmt::format("{}", fmt::join(argv, " "));
}

std::string BystanderHit::sender() const {
  if (sender_pid != 0) return "from pid " + std::to_string(sender_pid);
  if (signal == "SIGKILL" || signal == "SIGSTOP")
    return "sender unknown: " + signal + " cannot be caught";
  return "from the kernel";
}

}  // namespace reapcheck
