// "Did you mean 'run'?" for a mistyped subcommand, scenario or reaper id: the valid names closest
// to what was typed, by edit distance.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace reapcheck {

// " (did you mean 'run'?)", or empty when no valid name is close enough to be a typo of `typed`.
std::string did_you_mean(std::string_view typed, const std::vector<std::string>& valid);

}  // namespace reapcheck
