// Which scenarios and reapers a command line names: ids, globs over ids (fnmatch's `*`, `?` and
// `[...]`) and scenario tags. Pure: the catalogue's ids are passed in, nothing is read.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "harness/model/scenario_set.h"

namespace reapcheck {

// Whether `word` is a glob: it holds `*`, `?` or `[`.
bool is_glob(std::string_view word);

// Whether `pattern` (a plain id or a glob) names `id`.
bool names(std::string_view pattern, std::string_view id);

// Whether a --reaper argument is taken as it is, never as a glob: an `exec:` or `supervise:`
// command (labelled `NAME=exec:CMD` or not), or `@FILE`.
bool literal_reaper(std::string_view arg);

// The scenarios of `set` that `patterns` (ids or globs; every scenario when empty) name and that
// carry one of `tags` (any scenario when empty): in the order of `patterns`, a glob's matches in
// the set's order, each scenario once. UsageError for an id or a glob that names no scenario and
// for a tag no scenario carries (each with "did you mean" and the valid ones), and when the
// patterns and the tags have no scenario in common.
std::vector<Scenario> pick_scenarios(const ScenarioSet& set,
                                     const std::vector<std::string>& patterns,
                                     const std::vector<std::string>& tags);

// Every tag of `set`'s scenarios, sorted, each once.
std::vector<std::string> known_tags(const ScenarioSet& set);

// `wanted` with each glob replaced by the ids of `catalogue` it matches (in the catalogue's
// order), every other argument kept as it is (literal_reaper(), a plain id: checked later),
// each once, in order. UsageError for a glob that matches no id of the catalogue.
std::vector<std::string> expand_reaper_globs(const std::vector<std::string>& wanted,
                                             const std::vector<std::string>& catalogue);

// `ids` in order, each once: the first of each kept.
std::vector<std::string> without_repeats(const std::vector<std::string>& ids);

}  // namespace reapcheck
