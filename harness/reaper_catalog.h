// Every reaper a run can name: the built-in strategies, the presets for well-known external
// reapers, and any `exec:CMD` or `supervise:CMD`.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reaper/reaper.h"

namespace reapcheck {

struct ReaperChoice {
  std::string id;
  std::string technique;
  std::function<std::unique_ptr<reaper::Reaper>()> make;
  std::string needs;  // a program that must be installed, for presets; empty otherwise
  bool preset = false;
};

// The built-ins, then the presets.
const std::vector<ReaperChoice>& reaper_catalog();
std::vector<std::string> builtin_reaper_ids();
std::vector<std::string> preset_reaper_ids();

// Resolves an id from the catalog, or an `exec:CMD` / `supervise:CMD`; empty when unknown.
std::optional<ReaperChoice> resolve_reaper(std::string_view id);

// "pgroup, ps-walk, ..., and exec:CMD or supervise:CMD", for error messages.
std::string valid_reaper_ids();

}  // namespace reapcheck
