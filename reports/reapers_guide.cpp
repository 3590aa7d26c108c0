#include "reports/reapers_guide.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string_view>

namespace reapcheck {
namespace {

// Paths to the data reapcheck runs from (a checkout, a build tree's share/, an install) as
// fixtures/...: the guide is the same wherever reapcheck is.
std::string portable(std::string text) {
  constexpr std::string_view kFixtures = "/fixtures/";
  for (size_t at = text.find(kFixtures); at != std::string::npos;
       at = text.find(kFixtures, at + 1)) {
    size_t start = at;
    while (start > 0 && std::string_view(" \t\n'\"").find(text[start - 1]) == std::string::npos) {
      --start;
    }
    text.erase(start, at + 1 - start);
    at = start;
  }
  return text;
}

// What must be installed, for people: an npm package's or a Python module's name, not its path.
std::string installed(const std::string& need) {
  constexpr std::string_view kNode = "/fixtures/node/";
  constexpr std::string_view kModules = "/node_modules";
  constexpr std::string_view kPython = "/dist-packages/";
  const size_t node = need.rfind(kNode);
  if (node != std::string::npos && need.size() > kModules.size() &&
      need.compare(need.size() - kModules.size(), kModules.size(), kModules) == 0) {
    const size_t from = node + kNode.size();
    return "the npm package " + need.substr(from, need.size() - kModules.size() - from);
  }
  if (const size_t py = need.rfind(kPython); py != std::string::npos) {
    return "python3-" + need.substr(py + kPython.size());
  }
  return need;
}

std::string needs(const GuideReaper& r) {
  if (r.needs.empty()) return r.requires_what;
  std::vector<std::string> names;
  std::transform(r.needs.begin(), r.needs.end(), std::back_inserter(names), installed);
  return fmt::format("{} (installed: {})", r.requires_what, fmt::join(names, ", "));
}

std::string passes(const Guide& g, const GuideReaper& r) {
  if (!g.measured(r.id)) return "not yet measured";
  return fmt::format("{} of {}", g.passes(r.id), g.scenarios().size());
}

std::string introduction(const Guide& g) {
  const GuideRun& run = g.run();
  const GuideBench& bench = g.bench();
  std::string both;
  if (const auto b = g.run_against_bench()) {
    both = fmt::format(
        " (`{}` took {:.0f} ms in the run against {:.0f} ms in the bench, so compare a (run) "
        "figure with the other (run) figures: in the matrix a case shares the two CPUs with the "
        "case beside it)",
        b->reaper, b->run_ms, b->bench_ms);
  }
  return fmt::format(
      "Every reaper below ran against every scenario, each case in a sandbox of its own "
      "([docs/architecture.md](architecture.md)). The verdicts come from {}: {} cases, {} of "
      "each cell, every verdict one the cell's declared expectation allows "
      "([docs/expectations.md](expectations.md) has the whole table), {:.0f} s of wall time on "
      "{}. Reap latency — from the kill request until every member is dead, on a wide tree of "
      "100 or 1,000 members, {}; where the bench has no figure at 1,000 members, the figure "
      "marked (run) is the `wide-tree` case of the run above (1,000 members), the median of its "
      "repeats{} — was measured on {}. Timings depend on the machine's load; the verdicts do "
      "not, except where a cell below is named as differing across repeats.\n\n",
      run.command, run.cases, run.repeat, run.wall_s, run.machine,
      bench.quick ? "one run each, from `reapcheck bench --quick`, which measures the presets at "
                    "100 members only"
                  : "the median of three, from one `reapcheck bench`",
      both, bench.machine);
}

std::string repeats_and_totals(const Guide& g) {
  std::vector<std::string> flaky;
  std::vector<std::string> unmeasured;
  for (const GuideReaper& r : g.reapers()) {
    for (const std::string& f : g.flaky(r.id)) flaky.push_back(fmt::format("`{}` × {}", r.id, f));
    if (!g.measured(r.id)) unmeasured.push_back(fmt::format("`{}`", r.id));
  }
  std::string out = flaky.empty()
                        ? "Every cell gave the same verdict in every repeat.\n\n"
                        : fmt::format(
                              "Cells whose repeats disagreed in that run, each between forms its "
                              "expectation declares (each counted as no pass below): {}.\n\n",
                              fmt::join(flaky, "; "));
  if (!unmeasured.empty()) {
    out += fmt::format(
        "Not yet measured, added since that run (their expectations are declared, not "
        "measured): {}.\n\n",
        fmt::join(unmeasured, ", "));
  }
  const GuideBench& b = g.bench();
  if (b.matrix_wall_s) {
    out += fmt::format(
        "The built-in matrix took {:.1f} s for {} cases; the whole `run --presets` matrix {:.1f} s "
        "for {} cases ({} workers).\n\n",
        *b.matrix_wall_s, b.matrix_cases, b.presets_matrix_wall_s.value_or(0),
        b.presets_matrix_cases, b.matrix_jobs);
  }
  return out;
}

std::string at_a_glance(const Guide& g) {
  std::string out =
      "## At a glance\n\n| reaper | kind | passes | 100 members | 1,000 members | needs "
      "|\n|---|---|---|---|---|---|\n";
  for (const GuideReaper& r : g.reapers()) {
    out += fmt::format("| [{0}](#{0}) | {1} | {2} | {3} | {4} | {5} |\n", r.id,
                       r.builtin ? "built-in" : "preset", passes(g, r), g.latency(r.id, 100),
                       g.latency(r.id, 1000), r.requires_what);
  }
  return out;
}

// "`cgroup` fails none of the 38 (1 skipped as not applicable)", "`x` fails 2 (a, b)".
std::string evidence(const Guide& g, const std::string& id) {
  const size_t total = g.scenarios().size();
  if (!g.measured(id)) return fmt::format("`{}` not yet measured", id);
  const std::vector<std::string> f = g.fails(id);
  if (f.empty()) {
    return fmt::format("`{}` fails none of the {} ({} skipped as not applicable)", id, total,
                       total - static_cast<size_t>(g.passes(id)));
  }
  constexpr size_t kShown = 6;
  const std::vector<std::string> shown(f.begin(), f.begin() + std::min(f.size(), kShown));
  return fmt::format("`{}` fails {} ({}{})", id, f.size(), fmt::join(shown, ", "),
                     f.size() > kShown ? ", …" : "");
}

// How each kind of reaper is used, for the recommendation's title.
std::string_view use_of(std::string_view kind) {
  if (kind == "builtin") {
    return "**In your own program** (an orchestrator, a CI runner or a dev-tool launcher that "
           "links the reaper library, `reaper/`, and kills the agents it started)";
  }
  if (kind == "supervises") {
    return "**A program the agent is started under** (an init, a sandbox, a supervisor or a "
           "library that starts it, as a container's PID 1 or a CI job's wrapper is)";
  }
  return "**A kill command run at kill time** (on the agent's tree, by its pid, group, session or "
         "mark, as a launcher that stops an agent runs it)";
}

std::string recommendation(const Guide& g, const Guide::Recommendation& rec) {
  std::vector<std::string> choose;
  std::vector<std::string> latency;
  for (const std::string& id : rec.chosen) {
    const auto r = std::find_if(g.reapers().begin(), g.reapers().end(),
                                [&](const GuideReaper& x) { return x.id == id; });
    choose.push_back(fmt::format("`{}` — needs {}", id, r->requires_what));
    latency.push_back(fmt::format("`{}` {}", id, g.latency(id, 1000)));
  }
  std::vector<std::string> all = rec.chosen;
  all.insert(all.end(), rec.others.begin(), rec.others.end());
  std::vector<std::string> proof(all.size());
  std::transform(all.begin(), all.end(), proof.begin(),
                 [&](const std::string& id) { return evidence(g, id); });
  if (choose.empty()) {
    return fmt::format("{}: none measured yet. Evidence: {}.", use_of(rec.kind),
                       fmt::join(proof, "; "));
  }
  const size_t fewest = g.fails(rec.chosen.front()).size();
  return fmt::format(
      "{}: {}. In this run {} {} of the {} scenarios, the fewest of this kind; reap latency at "
      "1,000 members: {}. Evidence: {}.",
      use_of(rec.kind), fmt::join(choose, "; else "), rec.chosen.size() == 1 ? "it" : "each",
      fewest == 0 ? std::string("fails none") : fmt::format("fails {}", fewest),
      g.scenarios().size(), fmt::join(latency, ", "), fmt::join(proof, "; "));
}

std::string each_reaper(const Guide& g, const GuideReaper& r) {
  std::string out =
      fmt::format("\n### {}\n\n{}.\n\nNeeds: {}.\n\n", r.id, portable(r.technique), needs(r));
  out += fmt::format("Reap latency: {} at 100 members, {} at 1,000. {}.\n", g.latency(r.id, 100),
                     g.latency(r.id, 1000),
                     g.measured(r.id) ? fmt::format("Passes {} of {} scenarios", g.passes(r.id),
                                                    g.scenarios().size())
                                      : std::string("Not yet measured"));
  const auto failures = g.failures(r.id);
  const auto flaky = g.flaky(r.id);
  const auto unmeasured = g.unmeasured_scenarios(r.id);
  if (!failures.empty() || !flaky.empty() || !unmeasured.empty()) out += "\n";
  for (const auto& f : failures) {
    out += fmt::format("- **{}** in {}: {}\n", f.verdict, fmt::join(f.scenarios, ", "), f.reason);
  }
  if (!flaky.empty()) {
    out += fmt::format("- **differed across repeats** in {}\n", fmt::join(flaky, "; "));
  }
  if (unmeasured.size() == g.scenarios().size()) {
    out += "- **not yet measured**: the kept run has none of its cells\n";
  } else if (!unmeasured.empty()) {
    out += fmt::format("- **not yet measured** in {}\n", fmt::join(unmeasured, ", "));
  }
  return out;
}

}  // namespace

std::string reapers_guide_markdown(const Guide& g) {
  std::string out =
      "# Choosing a reaper\n\nGenerated by `reapcheck report --guide docs/data` from its catalogue "
      "and expectations, `docs/data/presets-run.json` and `docs/data/bench.json`; do not "
      "edit.\n\n";
  out += introduction(g) + repeats_and_totals(g) + at_a_glance(g);
  out += "\n## Recommendations\n\n";
  std::vector<std::string> recs;
  for (const auto& rec : g.recommendations()) recs.push_back(recommendation(g, rec));
  out += fmt::format("{}\n", fmt::join(recs, "\n\n"));
  out += "\n## Each reaper\n";
  for (const GuideReaper& r : g.reapers()) out += each_reaper(g, r);
  return out;
}

}  // namespace reapcheck
