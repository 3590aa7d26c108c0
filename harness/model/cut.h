// Cutting text to a width for people: whole UTF-8 characters, "…" where it was cut. Every report
// bounds its lines with it (reports/evidence.h), and the ledger's one-line records their argv.
// A list is shortened by whole items instead (first_items), so that no name is cut mid-word.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace reapcheck {

// `text` when it has at most `width` characters; else its first width - 1 and "…".
std::string cut(std::string_view text, size_t width);

// How many characters (not bytes) `text` has, as it takes room on a line.
size_t text_width(std::string_view text);

// `items` joined by ", ": as many whole items from the first as fit in `width` characters, and
// at most `most`, then " and N more" for those left out — "cgroup, pidns and 9 more". Never cuts
// an item: the first one is kept even when it alone is wider.
std::string first_items(const std::vector<std::string>& items, size_t width,
                        size_t most = std::numeric_limits<size_t>::max());

}  // namespace reapcheck
