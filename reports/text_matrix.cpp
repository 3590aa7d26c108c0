#include "reports/text_matrix.h"

#include <fmt/format.h>

#include <algorithm>

#include "harness/model/summary.h"
#include "reports/cell_label.h"
#include "reports/evidence.h"

namespace reapcheck {
namespace {

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
      if (c.reaper == r) w = std::max(w, cell_label(c).size());
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
      std::string text = c != nullptr ? cell_label(*c) : "-";
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

namespace {

const ScenarioNotes* notes_of(const RunResult& run, const std::string& scenario) {
  const auto it = run.scenarios.find(scenario);
  return it == run.scenarios.end() ? nullptr : &it->second;
}

// A cell that differs from its expectation: its reason, what to learn, and its evidence.
std::string deviation(const RunResult& run, const Cell& cell, const CaseResult& c) {
  std::string out =
      fmt::format("\n{} × {}{}: {} (expected {})\n  {}\n", c.scenario, c.reaper,
                  cell.runs.size() == 1 ? "" : fmt::format(" run {}", c.run), to_string(c.verdict),
                  expected_text(c.expected, c.expected_also), short_reason(c));
  for (const auto& line : lesson_lines(c, notes_of(run, c.scenario))) out += "  " + line + "\n";
  return out + evidence_text(c, "  ");
}

// A declared weakness seen as declared: one line of evidence and the lesson, not the whole story.
std::string known(const RunResult& run, const CaseResult& c) {
  std::string out = fmt::format("  {} × {}: {} — {}\n", c.scenario, c.reaper, to_string(c.verdict),
                                evidence_summary(c));
  for (const auto& line : lesson_lines(c, notes_of(run, c.scenario))) out += "    " + line + "\n";
  return out;
}

}  // namespace

std::string text_deviations(const RunResult& run) {
  std::string out;
  std::string weak;
  std::string skipped;
  const Summary s = summarise(run);
  for (const Cell& cell : s.cells) {
    const CaseResult& first = *cell.runs.front();
    if (!cell.as_expected()) {
      for (const CaseResult* c : cell.runs) {
        if (cell.consistent() && c != &first) break;  // one run tells a consistent story
        out += deviation(run, cell, *c);
      }
    } else if (cell.verdict() == Verdict::skipped) {
      skipped += fmt::format("  {} × {}: {}\n", cell.scenario, cell.reaper, short_reason(first));
    } else if (cell.verdict() != Verdict::pass) {
      weak += known(run, first);
    }
  }
  if (!out.empty()) out = "Deviations:" + out;
  if (!weak.empty()) out += "\nKnown weaknesses, as declared:\n" + weak;
  if (!skipped.empty()) out += "\nSkipped:\n" + skipped;
  return out;
}

}  // namespace reapcheck
