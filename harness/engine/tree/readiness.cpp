#include "harness/engine/tree/readiness.h"

#include <charconv>

#include "harness/model/scenario.h"

namespace reapcheck {

std::optional<Announcement> parse_announcement(std::string_view line) {
  constexpr std::string_view kPrefix = "ready ";
  if (line.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  line.remove_prefix(kPrefix.size());
  Announcement a;
  auto [ptr, ec] = std::from_chars(line.data(), line.data() + line.size(), a.pid);
  if (ec != std::errc() || a.pid <= 0 || ptr == line.data() + line.size() || *ptr != ' ') {
    return std::nullopt;
  }
  a.role = std::string(ptr + 1, line.data() + line.size());
  if (!is_role(a.role)) return std::nullopt;
  return a;
}

}  // namespace reapcheck
