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

// `text` when it has at most `width` characters; else "…" and its last width - 1: for the end of
// a program's output, where what it said last is what matters.
std::string cut_front(std::string_view text, size_t width);

// `text` within `width` characters when what follows `mark` in it is the end of a program's
// output: that keeps its end (cut_front), given at least half the room when it needs it, and the
// text before `mark` is cut (cut) to the rest. cut() when `mark` is not in `text`.
std::string cut_keeping_end(std::string_view text, std::string_view mark, size_t width);

// How many characters (not bytes) `text` has, as it takes room on a line.
size_t text_width(std::string_view text);

// `items` joined by ", ": as many whole items from the first as fit in `width` characters, and
// at most `most`, then " and N more" for those left out — "cgroup, pidns and 9 more". Never cuts
// an item: the first one is kept even when it alone is wider.
std::string first_items(const std::vector<std::string>& items, size_t width,
                        size_t most = std::numeric_limits<size_t>::max());

}  // namespace reapcheck
