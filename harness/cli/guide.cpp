#include "harness/cli/guide.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness/catalog/catalog.h"
#include "harness/engine/run/applicability.h"
#include "harness/model/guide.h"
#include "harness/support/exit_status.h"
#include "reports/file_output.h"
#include "reports/json_report.h"
#include "reports/reapers_guide.h"

namespace reapcheck {
namespace {

std::string slurp(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw UsageError("cannot read " + file.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void spew(const std::filesystem::path& file, const std::string& text) {
  try {
    write_text_file(file, text);  // as every report is written
  } catch (const ReportWriteError& e) {
    throw UsageError(std::string("cannot write ") + e.what());
  }
}

std::vector<GuideReaper> guide_reapers(const std::vector<ReaperChoice>& catalog) {
  std::vector<GuideReaper> out;
  for (const ReaperChoice& r : catalog) {
    std::vector<std::string> needs;
    for (const Need& n : r.needs) needs.push_back(n.what);
    out.push_back({r.id, r.origin == ReaperChoice::Origin::builtin, r.supervises, r.technique,
                   r.requires_what, needs});
  }
  return out;
}

// (scenario, reaper) → why that kind of reaper cannot do what the scenario asks.
std::map<std::pair<std::string, std::string>, std::string> inapplicable_cells(
    const ScenarioSet& set, const std::vector<ReaperChoice>& catalog) {
  std::map<std::pair<std::string, std::string>, std::string> out;
  for (const Scenario& s : set.scenarios) {
    for (const ReaperChoice& r : catalog) {
      if (std::string why = inapplicable(s, r); !why.empty()) out[{s.id, r.id}] = why;
    }
  }
  return out;
}

// The first line where `have` and `want` differ, each side, for a stale file.
std::string first_difference(const std::string& have, const std::string& want) {
  std::istringstream a(have);
  std::istringstream b(want);
  std::string la;
  std::string lb;
  for (int n = 1;; ++n) {
    const bool more_a = static_cast<bool>(std::getline(a, la));
    const bool more_b = static_cast<bool>(std::getline(b, lb));
    if (!more_a && !more_b) return "they differ in their last newline";
    if (!more_a || !more_b || la != lb) {
      return fmt::format("line {}:\n- {}\n+ {}", n, more_a ? la : "(end of file)",
                         more_b ? lb : "(end of file)");
    }
  }
}

int check(const Guide& guide, const std::string& text, const std::string& file) {
  if (const auto stale = guide.stale_cells(); !stale.empty()) {
    fmt::print(stderr,
               "reapcheck: the kept run is no longer evidence for what is declared:\n  {}\n"
               "a verdict changed: make the run again (`reapcheck run --presets --repeat 10 --json "
               "R.json`, `reapcheck bench --json B.json`, then `reapcheck report R.json "
               "--keep-guide-data docs/data --bench B.json --command \"COMMANDS\"`), or correct "
               "the expectations\n",
               fmt::join(stale, "\n  "));
    return kExitDeviation;
  }
  if (slurp(file) != text) {
    fmt::print(
        "{} is stale, first at {}\nregenerate it with\n  cmake --build build --target "
        "reapers-doc\n",
        file, first_difference(slurp(file), text));
    return kExitDeviation;
  }
  fmt::print("{} is up to date\n", file);
  return kExitOk;
}

}  // namespace

int reapers_guide(const GlobalArgs& global, const GuideArgs& args) {
  if (!args.check.empty() && !args.write.empty()) throw UsageError("--check or --write, not both");
  const ScenarioSet set = load_inputs(global);
  const std::filesystem::path dir = args.data;
  const std::vector<ReaperChoice> catalog = reaper_catalog(global.layout);
  const Guide guide(guide_reapers(catalog), set.ids(), set.expectations,
                    inapplicable_cells(set, catalog),
                    parse_guide_run(slurp(dir / "presets-run.json")),
                    parse_guide_bench(slurp(dir / "bench.json")));
  const std::string text = reapers_guide_markdown(guide);
  if (!args.check.empty()) return check(guide, text, args.check);
  if (args.write.empty()) {
    fmt::print("{}", text);
    return kExitOk;
  }
  spew(args.write, text);
  return kExitOk;
}

int keep_guide_data(const std::string& results, const GuideArgs& args) {
  if (args.bench.empty() || args.command.empty()) {
    throw UsageError("--keep-guide-data DIR needs --bench B.json and --command TEXT");
  }
  nlohmann::json bench;
  try {
    bench = nlohmann::json::parse(slurp(args.bench));
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(args.bench + ": " + e.what());
  }
  nlohmann::json kept = nlohmann::json::object();
  for (const char* key :
       {"machine", "quick", "reap", "matrix_wall_s", "matrix_cases", "matrix_jobs",
        "presets_matrix_wall_s", "presets_matrix_cases", "presets_matrix_unexpected"}) {
    if (bench.contains(key)) kept[key] = bench[key];
  }
  const RunResult run = read_json_report(results);
  const std::filesystem::path dir = args.keep;
  spew(dir / "presets-run.json",
       guide_run_json(kept_run(run, args.command, kept.value("machine", ""))));
  spew(dir / "bench.json", kept.dump(3) + "\n");
  return kExitOk;
}

}  // namespace reapcheck
