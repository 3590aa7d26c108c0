#include "reports/text_matrix.h"

#include <fmt/format.h>

#include <algorithm>

#include "harness/model/summary.h"
#include "reports/evidence.h"

namespace reapcheck {
namespace {

// A cell reads "pass", "leak (known)" for a declared weakness, "LEAK, expected pass" for a
// surprise, and lists the spread when repeats disagree.
std::string cell_text(const Cell& c) {
  if (!c.consistent()) {
    std::string s = "FLAKY";
    for (const auto& [v, n] : c.verdicts) s += fmt::format(" {}×{}", to_string(v), n);
    return s;
  }
  const Verdict v = c.verdict();
  if (v == Verdict::skipped) return "skipped";
  if (c.as_expected()) return v == Verdict::pass ? "pass" : fmt::format("{} (known)", to_string(v));
  std::string upper(to_string(v));
  std::transform(upper.begin(), upper.end(), upper.begin(), ::toupper);
  return fmt::format("{}, expected {}", upper, to_string(c.expected));
}

const char* cell_colour(const Cell& c) {
  if (!c.as_expected()) return "\x1b[1;31m";               // surprise: bold red
  if (c.verdict() == Verdict::pass) return "\x1b[32m";     // green
  if (c.verdict() == Verdict::skipped) return "\x1b[90m";  // grey
  return "\x1b[33m";                                       // known weakness: yellow
}

}  // namespace

std::string text_matrix(const RunResult& run, bool color) {
  const Summary s = summarise(run);
  size_t first = std::string("scenario").size();
  for (const auto& id : s.scenarios) first = std::max(first, id.size());
  std::vector<size_t> widths;
  for (const auto& r : s.reapers) {
    size_t w = r.size();
    for (const auto& c : s.cells) {
      if (c.reaper == r) w = std::max(w, cell_text(c).size());
    }
    widths.push_back(w);
  }
  std::string out = fmt::format("{:<{}}", "scenario", first);
  for (size_t i = 0; i < s.reapers.size(); ++i)
    out += fmt::format("  {:<{}}", s.reapers[i], widths[i]);
  out += "\n";
  for (const auto& scenario : s.scenarios) {
    out += fmt::format("{:<{}}", scenario, first);
    for (size_t i = 0; i < s.reapers.size(); ++i) {
      const Cell* c = s.find(scenario, s.reapers[i]);
      std::string text = c != nullptr ? cell_text(*c) : "-";
      std::string padded = fmt::format("{:<{}}", text, widths[i]);
      out += "  ";
      out += color && c != nullptr ? fmt::format("{}{}\x1b[0m", cell_colour(*c), padded) : padded;
    }
    out += "\n";
  }
  out += fmt::format(
      "\n{} cells: {} as expected, {} unexpected, {} inconsistent across repeats, "
      "{} skipped; {:.1f} s\n",
      s.cells.size(), s.cells.size() - s.unexpected() - s.inconsistent(), s.unexpected(),
      s.inconsistent(), s.skipped(), run.wall_s);
  return out;
}

std::string text_deviations(const RunResult& run) {
  std::string out;
  const Summary s = summarise(run);
  for (const Cell& cell : s.cells) {
    if (cell.as_expected()) continue;
    for (const CaseResult* c : cell.runs) {
      if (cell.consistent() && c != cell.runs.front()) break;  // one run tells a consistent story
      out += fmt::format(
          "\n{} × {}{}: {} (expected {})\n  {}\n", c->scenario, c->reaper,
          s.cells.empty() || cell.runs.size() == 1 ? "" : fmt::format(" run {}", c->run),
          to_string(c->verdict), to_string(c->expected), c->reason);
      out += evidence_text(*c, "  ");
    }
  }
  std::string skipped;
  for (const Cell& cell : s.cells) {
    if (cell.consistent() && cell.verdict() == Verdict::skipped) {
      skipped +=
          fmt::format("  {} × {}: {}\n", cell.scenario, cell.reaper, cell.runs.front()->reason);
    }
  }
  if (!out.empty()) out = "Deviations:" + out;
  if (!skipped.empty()) out += "\nSkipped:\n" + skipped;
  return out;
}

}  // namespace reapcheck
