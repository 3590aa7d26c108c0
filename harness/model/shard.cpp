#include "harness/model/shard.h"

#include <charconv>

namespace reapcheck {

std::optional<Shard> parse_shard(std::string_view text) {
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  Shard s;
  const auto k = text.substr(0, slash);
  const auto n = text.substr(slash + 1);
  if (std::from_chars(k.data(), k.data() + k.size(), s.index).ptr != k.data() + k.size() ||
      std::from_chars(n.data(), n.data() + n.size(), s.count).ptr != n.data() + n.size() ||
      k.empty() || n.empty() || s.count < 1 || s.index < 1 || s.index > s.count) {
    return std::nullopt;
  }
  return s;
}

}  // namespace reapcheck
