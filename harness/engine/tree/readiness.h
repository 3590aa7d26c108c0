// The readiness protocol: each fixture member writes "ready <pid> <role>" once it is in its final
// state. Parsing lives here so the runner and the tests agree on it.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

namespace reapcheck {

struct Announcement {
  pid_t pid = 0;
  std::string role;
};

// Empty when the line is not a well-formed announcement.
std::optional<Announcement> parse_announcement(std::string_view line);

}  // namespace reapcheck
