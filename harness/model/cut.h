// Cutting text to a width for people: whole UTF-8 characters, "…" where it was cut. Every report
// bounds its lines with it (reports/evidence.h), and the ledger's one-line records their argv.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace reapcheck {

// `text` when it has at most `width` characters; else its first width - 1 and "…".
std::string cut(std::string_view text, size_t width);

}  // namespace reapcheck
