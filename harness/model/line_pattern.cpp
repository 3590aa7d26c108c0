#include "harness/model/line_pattern.h"

#include <fmt/format.h>

// GCC 12 warns of a maybe-uninitialized std::function inside <regex> under ASan: a false
// positive in the standard library, silenced for what follows (the header's own lines).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <regex>

namespace reapcheck {

struct LinePattern::Regex {
  std::regex re;
};

std::string LinePattern::error(const std::string& pattern) {
  if (pattern.empty()) return "the ready log pattern is empty: it would match any line";
  try {
    const std::regex check(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return fmt::format("'{}' is not a regular expression (ECMAScript): {}", pattern, e.what());
  }
  return {};
}

LinePattern::LinePattern(const std::string& pattern) {
  if (pattern.find_first_of("\\^$.|?*+()[]{}") == std::string::npos) {
    literal_ = pattern;
  } else {
    regex_ = std::make_unique<Regex>(Regex{std::regex(pattern, std::regex::ECMAScript)});
  }
}

LinePattern::~LinePattern() = default;

bool LinePattern::found_in(std::string_view line) const {
  if (!regex_) return line.find(literal_) != std::string_view::npos;
  return std::regex_search(line.begin(), line.end(), regex_->re);
}

}  // namespace reapcheck
