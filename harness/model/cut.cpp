#include "harness/model/cut.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace reapcheck {
namespace {

bool continues_a_character(char byte) {
  return (static_cast<unsigned char>(byte) & 0xC0) == 0x80;
}

}  // namespace

std::string cut(std::string_view text, size_t width) {
  size_t chars = 0;
  size_t keep = text.size();  // where the width-th character starts
  for (size_t i = 0; i < text.size(); ++i) {
    if (continues_a_character(text[i])) continue;
    if (chars + 1 == width) keep = i;
    if (++chars > width) return std::string(text.substr(0, keep)) + "…";
  }
  return std::string(text);
}

size_t text_width(std::string_view text) {
  return static_cast<size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return !continues_a_character(c); }));
}

std::string first_items(const std::vector<std::string>& items, size_t width, size_t most) {
  // From the most items that may be shown down to one, the first text that fits.
  for (size_t shown = std::min(items.size(), std::max<size_t>(most, 1)); shown > 0; --shown) {
    const auto end = items.begin() + static_cast<std::ptrdiff_t>(shown);
    std::string text = fmt::format("{}", fmt::join(items.begin(), end, ", "));
    if (shown < items.size()) text += fmt::format(" and {} more", items.size() - shown);
    if (shown == 1 || text_width(text) <= width) return text;
  }
  return {};
}

}  // namespace reapcheck
