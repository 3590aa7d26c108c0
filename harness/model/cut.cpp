#include "harness/model/cut.h"

namespace reapcheck {

std::string cut(std::string_view text, size_t width) {
  size_t chars = 0;
  size_t keep = text.size();  // where the width-th character starts
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;  // inside a character
    if (chars + 1 == width) keep = i;
    if (++chars > width) return std::string(text.substr(0, keep)) + "…";
  }
  return std::string(text);
}

}  // namespace reapcheck
