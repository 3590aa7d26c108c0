#include "harness/cli/common.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "harness/catalog/catalog.h"
#include "harness/model/toml_reader.h"

namespace reapcheck {
namespace {

std::string reaper_id_from(const std::string& arg) {
  if (arg.empty() || arg[0] != '@') return arg;
  std::ifstream in(arg.substr(1));
  if (!in) throw UsageError(fmt::format("cannot read the reaper id from '{}'", arg.substr(1)));
  std::string id;
  std::getline(in, id);
  return id;
}

}  // namespace

ScenarioSet load_inputs(const GlobalArgs& global) {
  std::vector<std::string> reapers;
  for (const auto& r : reaper_catalog()) reapers.push_back(r.id);
  return load_scenario_set(global.scenario_dir, reapers);
}

void note_broken(const ScenarioSet& set) {
  for (const auto& b : set.broken) {
    fmt::print(stderr, "reapcheck: scenario '{}' is left out: {}\n", b.id, b.error);
  }
}

std::vector<Scenario> select_scenarios(const ScenarioSet& set,
                                       const std::vector<std::string>& wanted) {
  // A run that selects a file that did not parse fails with its error; one that does not goes on.
  for (const auto& b : set.broken) {
    if (wanted.empty() || std::find(wanted.begin(), wanted.end(), b.id) != wanted.end()) {
      throw InputError(b.error);
    }
  }
  note_broken(set);
  if (set.scenarios.empty()) {
    throw UsageError(set.dir.string() + ": no scenario files (*.toml)");
  }
  if (wanted.empty()) return set.scenarios;
  std::vector<Scenario> out;
  out.reserve(wanted.size());
  for (const auto& id : wanted) {
    const Scenario* s = set.find(id);
    if (s == nullptr) {
      throw UsageError(fmt::format("unknown scenario '{}' (scenarios in {}: {})", id,
                                   set.dir.string(), fmt::join(set.ids(), ", ")));
    }
    out.push_back(*s);
  }
  return out;
}

std::vector<std::string> select_reapers(const std::vector<std::string>& wanted, bool presets) {
  std::vector<std::string> out;
  out.reserve(wanted.size());
  for (const auto& w : wanted) out.push_back(reaper_id_from(w));
  if (out.empty()) out = reaper_ids(ReaperChoice::Origin::builtin);
  if (presets) {
    for (auto& id : reaper_ids(ReaperChoice::Origin::preset)) out.push_back(std::move(id));
  }
  for (const auto& id : out) {
    if (!resolve_reaper(id)) {
      throw UsageError(fmt::format("unknown reaper '{}' (valid: {})", id, valid_reaper_ids()));
    }
  }
  return out;
}

bool use_colour() {
  const char* no_color = std::getenv("NO_COLOR");
  return ::isatty(STDOUT_FILENO) != 0 && (no_color == nullptr || *no_color == '\0');
}

int default_jobs() {
  const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

}  // namespace reapcheck
