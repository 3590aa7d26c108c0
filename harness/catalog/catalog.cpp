#include "harness/catalog/catalog.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>

#include "harness/catalog/external.h"
#include "harness/model/reaper_name.h"

namespace reapcheck {
namespace {

constexpr std::string_view kExec = "exec:";
constexpr std::string_view kSupervise = "supervise:";

std::vector<ReaperChoice> build(const Layout& layout) {
  std::vector<ReaperChoice> all;
  for (const auto& r : reaper::builtin_reapers()) {
    ReaperChoice choice{ReaperChoice::Origin::builtin, std::string(r.id), std::string(r.technique),
                        r.make};
    choice.requires_what = std::string(r.needs);
    all.push_back(std::move(choice));
  }
  for (auto& p : presets(layout)) all.push_back(std::move(p));
  return all;
}

// The command after `prefix`, when `id` starts with it and names one.
std::optional<std::string> command_after(std::string_view id, std::string_view prefix) {
  if (id.size() <= prefix.size() || id.substr(0, prefix.size()) != prefix) return std::nullopt;
  return std::string(id.substr(prefix.size()));
}

}  // namespace

ReaperChoice exec_choice(std::string id, std::string command, ReaperChoice::Origin origin,
                         std::vector<Need> needs) {
  std::string technique = "exec: " + command;
  return {
      origin,
      std::move(id),
      std::move(technique),
      [command](const reaper::ReaperConfig& config) { return make_exec_command(command, config); },
      std::move(needs),
      false,
      std::move(command)};  // after the lambda's copy: a braced list is evaluated in order
}

ReaperChoice supervise_choice(std::string id, std::string command, ReaperChoice::Origin origin,
                              std::vector<Need> needs) {
  std::string technique = "supervise: " + command;
  return {origin,
          std::move(id),
          std::move(technique),
          [command = std::move(command)](const reaper::ReaperConfig& config) {
            return make_supervise(command, config);
          },
          std::move(needs),
          true};
}

std::string missing_need(const std::vector<Need>& needs, const Layout& layout) {
  for (const Need& n : needs) {
    std::error_code ec;
    const bool there = n.what.find('/') != std::string::npos ? std::filesystem::exists(n.what, ec)
                                                             : !layout.find_program(n.what).empty();
    if (!there) return fmt::format("{} is not installed ({})", n.what, n.how);
  }
  return {};
}

std::vector<ReaperChoice> reaper_catalog(const Layout& layout) {
  return build(layout);
}

std::vector<std::string> reaper_ids(ReaperChoice::Origin origin) {
  std::vector<std::string> ids;
  for (const auto& r : reaper_catalog(Layout{})) {  // where things are changes no id
    if (r.origin == origin) ids.push_back(r.id);
  }
  return ids;
}

bool known_reaper(std::string_view id) {
  return resolve_reaper(id, Layout{}).has_value();
}

std::optional<ReaperChoice> resolve_reaper(std::string_view id, const Layout& layout) {
  for (const auto& r : reaper_catalog(layout)) {
    if (r.id == id) return r;
  }
  // "NAME=exec:CMD" is exec:CMD under a name of the user's for the reports (reaper_name.h).
  const std::string_view command_id = split_reaper_label(id).reaper;
  if (auto command = command_after(command_id, kExec)) {
    return exec_choice(std::string(id), *command, ReaperChoice::Origin::command);
  }
  if (auto command = command_after(command_id, kSupervise)) {
    return supervise_choice(std::string(id), *command, ReaperChoice::Origin::command);
  }
  return std::nullopt;
}

std::string valid_reaper_ids() {
  std::vector<std::string> ids;
  for (const auto& r : reaper_catalog(Layout{})) ids.push_back(r.id);
  return fmt::format("{}, or exec:CMD / supervise:CMD", fmt::join(ids, ", "));
}

}  // namespace reapcheck
