// `reapcheck list`: the reapers, the presets and the scenarios, with what each reaper is expected
// to do where it is not `pass`. `--json` is the source of generated docs and of the CTest matrix.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include "harness/catalog/catalog.h"
#include "harness/cli/commands.h"
#include "harness/engine/run/applicability.h"
#include "harness/model/text.h"

namespace reapcheck {
namespace {

// Each option's long names (and the short ones), for shell completion.
nlohmann::json option_names(const CLI::App& app) {
  nlohmann::json names = nlohmann::json::array();
  for (const CLI::Option* o : app.get_options()) {
    for (const auto& n : o->get_lnames()) names.push_back("--" + n);
    for (const auto& n : o->get_snames()) names.push_back("-" + n);
  }
  return names;
}

// The commands and their options, read from the parser itself, so completion cannot drift.
nlohmann::json commands_json(const CLI::App& app) {
  nlohmann::json j = {{"global", option_names(app)}, {"commands", nlohmann::json::object()}};
  for (const CLI::App* sub : app.get_subcommands({})) {
    j["commands"][sub->get_name()] = option_names(*sub);
  }
  return j;
}

nlohmann::json list_json(const ScenarioSet& set, const std::vector<ReaperChoice>& catalog,
                         const CLI::App& app) {
  nlohmann::json j;
  j["cli"] = commands_json(app);
  j["reapers"] = nlohmann::json::array();
  j["presets"] = nlohmann::json::array();
  for (const auto& r : catalog) {
    nlohmann::json needs = nlohmann::json::array();
    for (const Need& n : r.needs) needs.push_back(n.what);
    nlohmann::json entry = {{"id", r.id},
                            {"technique", r.technique},
                            {"needs", needs},
                            {"requires", r.requires_what},
                            {"min_grace_ms", r.min_grace.count()}};
    j[r.origin == ReaperChoice::Origin::builtin ? "reapers" : "presets"].push_back(entry);
  }
  j["scenarios"] = nlohmann::json::array();
  for (const auto& s : set.scenarios) {
    nlohmann::json known = nlohmann::json::object();
    nlohmann::json skip = nlohmann::json::object();
    for (const auto& r : catalog) {
      if (const Expectation e = set.expectations.expected(s.id, r.id); is_weakness(e.verdict)) {
        known[r.id] = {{"verdict", to_string(e.verdict)},
                       {"also", verdict_names(e.also)},
                       {"reason", e.reason}};
      }
      if (const std::string* why = set.expectations.skip_reason(s.id, r.id)) {
        skip[r.id] = *why;
      } else if (std::string never = inapplicable(s, r); !never.empty()) {
        skip[r.id] = never;  // the scenario asks what this kind of reaper cannot do
      }
    }
    j["scenarios"].push_back({{"id", s.id},
                              {"description", s.description},
                              {"tags", s.tags},
                              {"file", s.file.string()},
                              {"members", s.member_count()},
                              {"known", known},
                              {"skip", skip}});
  }
  return j;
}

void print_list(const ScenarioSet& set, const std::vector<ReaperChoice>& catalog) {
  fmt::print("Reapers (built in):\n");
  for (const auto& r : catalog) {
    if (r.origin == ReaperChoice::Origin::builtin) fmt::print("  {:<12} {}\n", r.id, r.technique);
  }
  fmt::print("\nPresets (--presets, or --reaper ID):\n");
  for (const auto& r : catalog) {
    if (r.origin == ReaperChoice::Origin::preset) fmt::print("  {:<12} {}\n", r.id, r.technique);
  }
  fmt::print(
      "\nAny other reaper: --reaper 'exec:CMD' (run at kill time with {{pid}} {{pgid}} {{sid}} "
      "{{worktree}} {{grace_s}})\n                  --reaper 'supervise:CMD' (the agent runs "
      "as CMD AGENT...)\n");
  fmt::print("\nScenarios:\n");
  for (const auto& s : set.scenarios) {
    fmt::print("  {:<16} {} [{}]\n", s.id, s.description, fmt::join(s.tags, ", "));
    for (const auto& r : catalog) {
      if (const Expectation e = set.expectations.expected(s.id, r.id); is_weakness(e.verdict)) {
        fmt::print("  {:<16}   known: {} → {}: {}\n", "", r.id, expected_text(e.verdict, e.also),
                   e.reason);
      }
    }
  }
}

}  // namespace

Command list_command(CLI::App& app, const GlobalArgs& global) {
  auto json = std::make_shared<bool>(false);
  auto* cmd =
      app.add_subcommand("list", "List the scenarios, the built-in reapers and the presets");
  cmd->footer("Examples:\n  reapcheck list\n  reapcheck list --json");
  cmd->add_flag("--json", *json,
                "Print as JSON (the source of generated docs, tests and shell completion)");
  return {cmd, [json, &global, &app] {
            const ScenarioSet set = load_inputs(global);
            note_broken(set);
            const std::vector<ReaperChoice> catalog = reaper_catalog(global.layout);
            if (*json) {
              fmt::print("{}\n", json_text(list_json(set, catalog, app), 2));
            } else {
              print_list(set, catalog);
            }
            return 0;
          }};
}

}  // namespace reapcheck
