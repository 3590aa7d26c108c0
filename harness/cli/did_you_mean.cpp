#include "harness/cli/did_you_mean.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>

namespace reapcheck {
namespace {

// Levenshtein distance, one row at a time.
size_t distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string did_you_mean(std::string_view typed, const std::vector<std::string>& valid) {
  // A third of the word, at least 2: "rn" → "run", "setsid-escpe" → "setsid-escape", but not
  // "x" → every two-letter id.
  const size_t limit = std::max<size_t>(2, typed.size() / 3);
  size_t best = limit + 1;
  std::vector<std::string> closest;
  for (const auto& v : valid) {
    const size_t d = distance(typed, v);
    if (d < best) {
      best = d;
      closest.clear();
    }
    if (d == best) closest.push_back("'" + v + "'");
  }
  if (closest.empty()) return {};
  return fmt::format(" (did you mean {}?)", fmt::join(closest, " or "));
}

}  // namespace reapcheck
