// The guide's two kept files, docs/data/presets-run.json and docs/data/bench.json, read.
#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "harness/model/guide.h"
#include "harness/model/toml_reader.h"

namespace reapcheck {
namespace {

nlohmann::json parse(const std::string& text, const char* what) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(std::string(what) + ": " + e.what());
  }
}

Verdict verdict_of(const nlohmann::json& j) {
  const auto text = j.get<std::string>();
  if (auto v = parse_verdict(text)) return *v;
  throw InputError("the kept run: unknown verdict '" + text + "'");
}

std::optional<double> number_or_null(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  return j.at(key).get<double>();
}

GuideCell cell_of(const nlohmann::json& c) {
  GuideCell cell{c.at("scenario").get<std::string>(),
                 c.at("reaper").get<std::string>(),
                 verdict_of(c.at("verdict")),
                 {},
                 c.value("reason", ""),
                 std::nullopt};
  for (const auto& v : c.value("verdicts", nlohmann::json::array())) {
    cell.verdicts.push_back(verdict_of(v));
  }
  if (c.contains("all_dead_ms")) cell.all_dead_ms = c.at("all_dead_ms").get<std::vector<double>>();
  return cell;
}

}  // namespace

GuideRun parse_guide_run(const std::string& json) {
  const nlohmann::json j = parse(json, "the kept run");
  try {
    GuideRun run{j.at("command").get<std::string>(), j.at("repeat").get<int>(),
                 j.at("wall_s").get<double>(),       j.at("cases").get<int>(),
                 j.at("machine").get<std::string>(), {}};
    for (const auto& c : j.at("cells")) run.cells.push_back(cell_of(c));
    return run;
  } catch (const nlohmann::json::exception& e) {
    throw InputError(std::string("the kept run: ") + e.what());
  }
}

GuideBench parse_guide_bench(const std::string& json) {
  const nlohmann::json j = parse(json, "the kept bench");
  try {
    GuideBench bench{j.at("machine").get<std::string>(),
                     j.at("quick").get<bool>(),
                     {},
                     number_or_null(j, "matrix_wall_s"),
                     j.value("matrix_cases", 0),
                     j.value("matrix_jobs", 0),
                     number_or_null(j, "presets_matrix_wall_s"),
                     j.value("presets_matrix_cases", 0)};
    for (const auto& r : j.at("reap")) {
      bench.reap.push_back({r.at("reaper").get<std::string>(), r.at("shape").get<std::string>(),
                            r.at("members").get<int>(), number_or_null(r, "ms"),
                            r.at("verdict").get<std::string>()});
    }
    return bench;
  } catch (const nlohmann::json::exception& e) {
    throw InputError(std::string("the kept bench: ") + e.what());
  }
}

GuideRun kept_run(const RunResult& run, std::string command, std::string machine) {
  GuideRun kept{std::move(command), run.repeat, run.wall_s, static_cast<int>(run.cases.size()),
                std::move(machine), {}};
  std::map<std::pair<std::string, std::string>, GuideCell> cells;  // sorted as the file is
  for (const CaseResult& c : run.cases) {
    GuideCell& cell = cells[{c.scenario, c.reaper}];
    if (cell.scenario.empty()) cell = {c.scenario, c.reaper, c.verdict, {}, "", std::nullopt};
    cell.verdict = c.verdict;  // the last repeat's, as the cell's
    cell.reason = c.verdict == Verdict::skipped ? c.reason : "";
    if (std::find(cell.verdicts.begin(), cell.verdicts.end(), c.verdict) == cell.verdicts.end()) {
      cell.verdicts.push_back(c.verdict);
    }
    if (c.scenario == "wide-tree") {
      if (!cell.all_dead_ms) cell.all_dead_ms.emplace();
      cell.all_dead_ms->push_back(std::round(c.all_dead_ms * 10) / 10);
    }
  }
  for (auto& [key, cell] : cells) {
    if (cell.verdicts.size() < 2) {
      cell.verdicts.clear();
    } else {
      std::sort(cell.verdicts.begin(), cell.verdicts.end(),
                [](Verdict a, Verdict b) { return to_string(a) < to_string(b); });
    }
    kept.cells.push_back(std::move(cell));
  }
  return kept;
}

std::string guide_run_json(const GuideRun& run) {
  nlohmann::json cells = nlohmann::json::array();
  for (const GuideCell& c : run.cells) {
    nlohmann::json j = {{"scenario", c.scenario},
                        {"reaper", c.reaper},
                        {"verdict", to_string(c.verdict)},
                        {"reason", c.reason}};
    if (!c.verdicts.empty()) j["verdicts"] = verdict_names(c.verdicts);
    if (c.all_dead_ms) j["all_dead_ms"] = *c.all_dead_ms;
    cells.push_back(std::move(j));
  }
  const nlohmann::json j = {{"command", run.command}, {"repeat", run.repeat},
                            {"wall_s", run.wall_s},   {"cases", run.cases},
                            {"machine", run.machine}, {"cells", cells}};
  return j.dump(3) + "\n";
}

}  // namespace reapcheck
