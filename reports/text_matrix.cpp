#include "reports/text_matrix.h"

#include <fmt/color.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "harness/model/cut.h"
#include "harness/model/reaper_name.h"
#include "harness/model/summary.h"
#include "reports/cell_label.h"
#include "reports/evidence.h"

namespace reapcheck {
namespace {

// The deviations shown with their whole evidence, in bytes: past this (the first is always
// shown whole), one line each, so that the report stays about a screen whatever failed.
constexpr size_t kWholeDeviationBytes = 1500;
constexpr size_t kOneLineWidth = 110;  // a deviation in one line: its cell, then its evidence

fmt::text_style cell_style(const Cell& c) {
  if (!c.as_expected()) return fmt::emphasis::bold | fg(fmt::terminal_color::red);  // surprise
  if (c.verdict() == Verdict::pass) return fg(fmt::terminal_color::green);
  if (c.verdict() == Verdict::skipped) return fg(fmt::terminal_color::bright_black);  // grey
  return fg(fmt::terminal_color::yellow);  // a known weakness
}

std::string table(const Summary& s, bool color) {
  size_t first = std::string("scenario").size();
  for (const auto& id : s.scenarios) first = std::max(first, id.size());
  std::vector<size_t> widths;
  for (const auto& r : s.reapers) {
    size_t w = shown_reaper(r).size();
    for (const auto& c : s.cells) {
      if (c.reaper == r) w = std::max(w, cell_label(c).size());
    }
    widths.push_back(w);
  }
  std::string out = fmt::format("{:<{}}", "scenario", first);
  for (size_t i = 0; i < s.reapers.size(); ++i)
    out += fmt::format("  {:<{}}", shown_reaper(s.reapers[i]), widths[i]);
  out += "\n";
  for (const auto& scenario : s.scenarios) {
    out += fmt::format("{:<{}}", scenario, first);
    for (size_t i = 0; i < s.reapers.size(); ++i) {
      const Cell* c = s.find(scenario, s.reapers[i]);
      const std::string padded =
          fmt::format("{:<{}}", c != nullptr ? cell_label(*c) : "-", widths[i]);
      out += "  ";
      out +=
          color && c != nullptr ? fmt::format("{}", fmt::styled(padded, cell_style(*c))) : padded;
    }
    out += "\n";
  }
  return out;
}

std::string summary_line(const RunResult& run, const Summary& s) {
  const std::string incomplete = incompleteness(run);
  return fmt::format(
      "{} cells: {} as expected, {} unexpected, {} inconsistent across repeats, {} skipped; "
      "{:.1f} s\n{}",
      s.cells.size(), s.cells.size() - s.unexpected() - s.inconsistent(), s.unexpected(),
      s.inconsistent(), s.skipped(), run.wall_s,
      incomplete.empty() ? "" : "INCOMPLETE: " + incomplete + "\n");
}

std::string matrix_and_summary(const RunResult& run, const Summary& s, bool color) {
  return table(s, color) + "\n" + summary_line(run, s);
}

const ScenarioNotes* notes_of(const RunResult& run, const std::string& scenario) {
  const auto it = run.scenarios.find(scenario);
  return it == run.scenarios.end() ? nullptr : &it->second;
}

// A case that differs from its expectation: its reason, what to learn, and its evidence.
std::string deviation(const RunResult& run, const Cell& cell, const CaseResult& c) {
  std::string out =
      fmt::format("\n{} × {}{}: {} (expected {})\n  {}\n", c.scenario, shown_reaper(c.reaper),
                  cell.runs.size() == 1 ? "" : fmt::format(" run {}", c.run), to_string(c.verdict),
                  expected_text(c.expected, c.expected_also), short_reason(c));
  for (const auto& line : lesson_lines(c, notes_of(run, c.scenario))) out += "  " + line + "\n";
  return out + evidence_text(c, "  ");
}

// A cell that differs from its expectation, in one line: what the matrix says, then the
// evidence that decided it.
std::string one_line(const Cell& cell) {
  const std::string head =
      fmt::format("{} × {}: {} — ", cell.scenario, shown_reaper(cell.reaper), cell_label(cell));
  const size_t room = kOneLineWidth - std::min(kOneLineWidth - 20, text_width(head));
  return "  " + head + evidence_brief(*cell.runs.front(), room) + "\n";
}

// Every deviation, whole; or, unless `whole`, the first few whole and the others in one line.
std::string deviations(const RunResult& run, const Summary& s, bool whole) {
  std::string full;
  std::string brief;
  size_t briefed = 0;
  for (const Cell& cell : s.cells) {
    if (cell.as_expected()) continue;
    std::string text;
    for (const CaseResult* c : cell.runs) {
      if (cell.consistent() && c != cell.runs.front()) break;  // one run tells a consistent story
      text += deviation(run, cell, *c);
    }
    if (whole || full.empty() ||
        (briefed == 0 && full.size() + text.size() <= kWholeDeviationBytes)) {
      full += text;
    } else {
      brief += one_line(cell);
      ++briefed;
    }
  }
  if (full.empty()) return {};
  std::string out = "Deviations:" + full;
  if (briefed > 0) {
    out +=
        fmt::format("\n{} more, one line each (--explain shows each in full):\n{}", briefed, brief);
  }
  return out;
}

// A declared weakness seen as declared: one line of evidence and the lesson, not the whole story.
std::string known(const RunResult& run, const CaseResult& c) {
  std::string out = fmt::format("  {} × {}: {} — {}\n", c.scenario, shown_reaper(c.reaper),
                                to_string(c.verdict), evidence_summary(c));
  for (const auto& line : lesson_lines(c, notes_of(run, c.scenario))) out += "    " + line + "\n";
  return out;
}

// Every declared weakness seen with its lesson, and every skip with its reason.
std::string declared_in_full(const RunResult& run, const Summary& s) {
  std::string weak;
  std::string skipped;
  for (const Cell& cell : s.cells) {
    if (!cell.as_expected()) continue;
    const CaseResult& first = *cell.runs.front();
    if (cell.verdict() == Verdict::skipped) {
      skipped += fmt::format("  {} × {}: {}\n", cell.scenario, shown_reaper(cell.reaper),
                             short_reason(first));
    } else if (cell.verdict() != Verdict::pass) {
      weak += known(run, first);
    }
  }
  std::string out;
  if (!weak.empty()) out += "\nKnown weaknesses, as declared:\n" + weak;
  if (!skipped.empty()) out += "\nSkipped:\n" + skipped;
  return out;
}

// What `reaper`'s expectations declare and the run saw as declared, in one line: "12 known
// weaknesses (leak ×9, stray-signal ×3), 1 skipped"; empty when it passed everything.
std::string declared_line(const Summary& s, const std::string& reaper) {
  std::map<Verdict, int> weak;
  int weak_cells = 0;
  int skipped = 0;
  for (const Cell& cell : s.cells) {
    if (cell.reaper != reaper || !cell.as_expected() || cell.verdict() == Verdict::pass) continue;
    if (cell.verdict() == Verdict::skipped) {
      ++skipped;
    } else {
      ++weak[cell.verdict()];
      ++weak_cells;
    }
  }
  std::vector<std::pair<Verdict, int>> by_count(weak.begin(), weak.end());
  std::stable_sort(by_count.begin(), by_count.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> kinds;
  kinds.reserve(by_count.size());
  for (const auto& [v, n] : by_count) kinds.push_back(fmt::format("{} ×{}", to_string(v), n));
  std::vector<std::string> parts;
  if (weak_cells > 0) {
    parts.push_back(fmt::format("{} known weakness{} ({})", weak_cells, weak_cells == 1 ? "" : "es",
                                fmt::join(kinds, ", ")));
  }
  if (skipped > 0) parts.push_back(fmt::format("{} skipped", skipped));
  return fmt::format("{}", fmt::join(parts, ", "));
}

// One line per reaper for the weaknesses and skips its expectations declare, seen as declared.
std::string declared_by_reaper(const Summary& s) {
  std::string out;
  for (const auto& reaper : s.reapers) {
    if (const std::string line = declared_line(s, reaper); !line.empty()) {
      out += fmt::format("{}: {} — --explain to list them\n", shown_reaper(reaper), line);
    }
  }
  return out.empty() ? out : "\n" + out;
}

// Why cells were skipped, one line per reason with the cells it took: a machine that cannot run a
// case says so in a line, however many cases it skipped.
std::string skips_by_reason(const Summary& s) {
  std::map<std::string, std::vector<std::string>> by_reason;
  for (const Cell& cell : s.cells) {
    if (cell.verdict() != Verdict::skipped) continue;
    by_reason[short_reason(*cell.runs.front())].push_back(
        fmt::format("{} × {}", cell.scenario, shown_reaper(cell.reaper)));
  }
  std::string out;
  for (const auto& [reason, cells] : by_reason) {
    out += fmt::format("  {}: {}\n", reason, first_items(cells, 60));
  }
  return out.empty() ? out : "\nSkipped:\n" + out;
}

}  // namespace

std::string text_matrix(const RunResult& run, bool color) {
  return matrix_and_summary(run, summarise(run), color);
}

std::string text_report(const RunResult& run, bool color, TextDetail detail) {
  const Summary s = summarise(run);
  if (detail == TextDetail::quiet) {
    const std::string found = deviations(run, s, false);
    return found + (found.empty() ? "" : "\n") + summary_line(run, s);
  }
  const std::string matrix = matrix_and_summary(run, s, color);
  if (detail == TextDetail::explain) {
    return matrix + deviations(run, s, true) + declared_in_full(run, s);
  }
  return matrix + deviations(run, s, false) + declared_by_reaper(s) + skips_by_reason(s);
}

}  // namespace reapcheck
