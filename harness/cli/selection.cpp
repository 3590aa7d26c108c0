#include "harness/cli/selection.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fnmatch.h>

#include <algorithm>
#include <set>

#include "harness/cli/did_you_mean.h"
#include "harness/cli/usage_error.h"
#include "harness/model/reaper_name.h"

namespace reapcheck {
namespace {

bool carries_any(const Scenario& s, const std::vector<std::string>& tags) {
  return std::any_of(tags.begin(), tags.end(), [&](const std::string& t) {
    return std::find(s.tags.begin(), s.tags.end(), t) != s.tags.end();
  });
}

// The scenarios `patterns` name, in their order, each once; every one when `patterns` is empty.
std::vector<const Scenario*> named_scenarios(const ScenarioSet& set,
                                             const std::vector<std::string>& patterns) {
  std::vector<const Scenario*> out;
  if (patterns.empty()) {
    for (const auto& s : set.scenarios) out.push_back(&s);
    return out;
  }
  const std::vector<std::string> ids = set.ids();
  const std::string valid =
      fmt::format("scenarios in {}: {}", set.dir.string(), fmt::join(ids, ", "));
  for (const auto& pattern : patterns) {
    bool matched = false;
    for (const auto& s : set.scenarios) {
      if (!names(pattern, s.id)) continue;
      matched = true;
      if (std::find(out.begin(), out.end(), &s) == out.end()) out.push_back(&s);
    }
    if (matched) continue;
    if (!is_glob(pattern)) {
      throw UsageError(
          fmt::format("unknown scenario '{}'{} ({})", pattern, did_you_mean(pattern, ids), valid));
    }
    throw UsageError(fmt::format("--scenario '{}' matches no scenario{} ({})", pattern,
                                 did_you_mean(pattern, ids), valid));
  }
  return out;
}

void check_tags(const ScenarioSet& set, const std::vector<std::string>& tags) {
  const std::vector<std::string> known = known_tags(set);
  for (const auto& tag : tags) {
    if (std::find(known.begin(), known.end(), tag) == known.end()) {
      throw UsageError(fmt::format("unknown tag '{}'{} (tags of the scenarios in {}: {})", tag,
                                   did_you_mean(tag, known), set.dir.string(),
                                   fmt::join(known, ", ")));
    }
  }
}

}  // namespace

bool is_glob(std::string_view word) {
  return word.find_first_of("*?[") != std::string_view::npos;
}

bool names(std::string_view pattern, std::string_view id) {
  if (!is_glob(pattern)) return pattern == id;
  return ::fnmatch(std::string(pattern).c_str(), std::string(id).c_str(), 0) == 0;
}

bool literal_reaper(std::string_view arg) {
  if (!arg.empty() && arg.front() == '@') return true;
  const std::string_view command = split_reaper_label(arg).reaper;
  return command.substr(0, 5) == "exec:" || command.substr(0, 10) == "supervise:";
}

std::vector<std::string> known_tags(const ScenarioSet& set) {
  std::set<std::string> tags;
  for (const auto& s : set.scenarios) tags.insert(s.tags.begin(), s.tags.end());
  return {tags.begin(), tags.end()};
}

std::vector<Scenario> pick_scenarios(const ScenarioSet& set,
                                     const std::vector<std::string>& patterns,
                                     const std::vector<std::string>& tags) {
  check_tags(set, tags);
  std::vector<Scenario> out;
  for (const Scenario* s : named_scenarios(set, patterns)) {
    if (tags.empty() || carries_any(*s, tags)) out.push_back(*s);
  }
  if (out.empty()) {
    throw UsageError(fmt::format("no scenario that --scenario {} names is tagged {}",
                                 fmt::join(patterns, " --scenario "), fmt::join(tags, " or ")));
  }
  return out;
}

std::vector<std::string> expand_reaper_globs(const std::vector<std::string>& wanted,
                                             const std::vector<std::string>& catalogue) {
  std::vector<std::string> out;
  for (const auto& arg : wanted) {
    if (literal_reaper(arg) || !is_glob(arg)) {
      out.push_back(arg);
      continue;
    }
    const size_t before = out.size();
    for (const auto& id : catalogue) {
      if (names(arg, id)) out.push_back(id);
    }
    if (out.size() == before) {
      throw UsageError(fmt::format("--reaper '{}' matches no reaper{} (reapers: {})", arg,
                                   did_you_mean(arg, catalogue), fmt::join(catalogue, ", ")));
    }
  }
  return without_repeats(out);
}

std::vector<std::string> without_repeats(const std::vector<std::string>& ids) {
  std::vector<std::string> out;
  for (const auto& id : ids) {
    if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
  }
  return out;
}

}  // namespace reapcheck
