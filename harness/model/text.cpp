#include "harness/model/text.h"

#include <fmt/format.h>

#include <algorithm>

namespace reapcheck {
namespace {

// The length of the valid UTF-8 sequence starting at `s[i]`, or 0 when there is none.
size_t utf8_sequence(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  size_t n = 0;
  unsigned int min = 0;
  unsigned int cp = 0;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) {
    n = 2, min = 0x80, cp = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3, min = 0x800, cp = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4, min = 0x10000, cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  // Overlong forms, surrogates and code points past Unicode are not valid UTF-8.
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

// Whether the valid sequence of `n` bytes at `s[i]` is a C1 control (U+0080 to U+009F, which a
// terminal may act on as it does on ESC) or U+FFFE or U+FFFF (which XML does not allow).
bool unprintable_sequence(std::string_view s, size_t i, size_t n) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  if (n == 2) return byte(0) == 0xC2 && byte(1) <= 0x9F;
  return n == 3 && byte(0) == 0xEF && byte(1) == 0xBF && byte(2) >= 0xBE;
}

}  // namespace

std::string printable(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (size_t i = 0; i < bytes.size();) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    const size_t n = utf8_sequence(bytes, i);
    if (n == 0 || (c < 0x20 && c != '\t' && c != '\n') || c == 0x7F ||
        unprintable_sequence(bytes, i, n)) {
      for (const size_t end = i + std::max<size_t>(n, 1); i < end; ++i) {
        out += fmt::format("\\x{:02X}", static_cast<unsigned char>(bytes[i]));
      }
    } else {
      out.append(bytes.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::vector<std::string> printable(const std::vector<std::string>& bytes) {
  std::vector<std::string> out;
  out.reserve(bytes.size());
  for (const auto& b : bytes) out.push_back(printable(b));
  return out;
}

std::string json_text(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace reapcheck
