#include "reports/cell_label.h"

#include <fmt/format.h>

#include <algorithm>

namespace reapcheck {

std::string cell_label(const Cell& c) {
  if (!c.consistent()) {
    std::string s = "FLAKY";
    for (const auto& [v, n] : c.verdicts) s += fmt::format(" {}×{}", to_string(v), n);
    return s;
  }
  const Verdict v = c.verdict();
  if (v == Verdict::skipped) return "skipped";
  if (c.as_expected()) return v == Verdict::pass ? "pass" : fmt::format("{} (known)", to_string(v));
  std::string upper(to_string(v));
  std::transform(upper.begin(), upper.end(), upper.begin(), ::toupper);
  return fmt::format("{}, expected {}", upper, expected_text(c.expected, c.expected_also));
}

}  // namespace reapcheck
