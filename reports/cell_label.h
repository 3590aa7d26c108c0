// What a matrix cell says in words, the same on the terminal and in the HTML page, so that an
// unexpected verdict is marked in text and not by colour alone: "pass", "leak (known)" for a
// declared weakness, "LEAK, expected pass" for a surprise, "FLAKY leak×2 pass×1" when repeats
// disagree.
#pragma once

#include <string>

#include "harness/model/summary.h"

namespace reapcheck {

std::string cell_label(const Cell& c);

}  // namespace reapcheck
