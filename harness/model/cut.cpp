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

std::string cut_front(std::string_view text, size_t width) {
  const size_t chars = text_width(text);
  if (chars <= width) return std::string(text);
  if (width == 0) return {};
  size_t drop = chars - (width - 1);  // characters before the kept end
  for (size_t i = 0; i < text.size(); ++i) {
    if (continues_a_character(text[i])) continue;
    if (drop-- == 0) return "…" + std::string(text.substr(i));
  }
  return "…";
}

std::string cut_keeping_end(std::string_view text, std::string_view mark, size_t width) {
  const size_t at = text.find(mark);
  const size_t mark_width = text_width(mark);
  if (text_width(text) <= width || at == std::string_view::npos || width < mark_width + 2) {
    return cut(text, width);
  }
  const std::string_view head = text.substr(0, at);
  const std::string_view tail = text.substr(at + mark.size());
  const size_t room = width - mark_width;
  const size_t head_width = text_width(head);
  const size_t tail_room =
      std::min(text_width(tail), std::max(room / 2, room > head_width ? room - head_width : 0));
  return cut(head, room - tail_room) + std::string(mark) + cut_front(tail, tail_room);
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
