// A pattern a line of output is searched for (`--ready-log`, [agent.ready] log): an ECMAScript
// regular expression, searched plainly when it has no special character (a spewing command's
// megabytes then go at memory speed, not std::regex's). The only user of <regex>, kept in one
// file: GCC 12 warns inside <regex> under the sanitizers, a false positive.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace reapcheck {

class LinePattern {
 public:
  // Why `pattern` cannot be one (empty: it would match any line; not ECMAScript), or empty.
  static std::string error(const std::string& pattern);

  // `pattern` must be one (error() is empty).
  explicit LinePattern(const std::string& pattern);
  ~LinePattern();
  LinePattern(const LinePattern&) = delete;
  LinePattern& operator=(const LinePattern&) = delete;

  bool found_in(std::string_view line) const;

 private:
  struct Regex;
  std::string literal_;
  std::unique_ptr<Regex> regex_;
};

}  // namespace reapcheck
