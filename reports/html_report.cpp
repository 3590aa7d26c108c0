#include "reports/html_report.h"

#include <fmt/format.h>

#include "harness/model/summary.h"
#include "reports/evidence.h"
#include "reports/file_output.h"

namespace reapcheck {
namespace {

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// pass, known (a declared weakness seen), surprise (differs from the declaration), skipped,
// flaky (repeats disagree).
const char* cell_class(const Cell& c) {
  if (!c.consistent()) return "flaky";
  if (c.verdict() == Verdict::skipped) return "skipped";
  if (!c.as_expected()) return "surprise";
  return c.verdict() == Verdict::pass ? "pass" : "known";
}

std::string evidence(const CaseResult& c) {
  std::string out = fmt::format("<p><b>{}</b>, expected {}. {}</p>", to_string(c.verdict),
                                to_string(c.expected), escape(c.reason));
  if (!c.expected_reason.empty()) out += "<p>Declared: " + escape(c.expected_reason) + "</p>";
  for (const auto& s : evidence_sections(c)) {
    out += "<p>" + escape(s.title) + ":</p>";
    if (s.preformatted) {
      std::string text;
      for (const auto& line : s.lines) text += line + "\n";
      out += "<pre>" + escape(text) + "</pre>";
      continue;
    }
    out += "<ul>";
    for (const auto& line : s.lines) out += "<li><code>" + escape(line) + "</code></li>";
    out += "</ul>";
  }
  out += fmt::format(
      "<p class=t>kill {:.0f} ms · all dead {} · case {:.0f} ms</p>", c.kill_ms,
      c.all_dead_ms < 0 ? std::string("never") : fmt::format("{:.0f} ms", c.all_dead_ms),
      c.case_ms);
  return out;
}

constexpr const char* kStyle = R"(
body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse}th,td{border:1px solid #ccc;padding:4px 6px;vertical-align:top}
th{background:#f4f4f4;position:sticky;top:0}td.s{font-weight:600;white-space:nowrap}
td.pass{background:#dff3df}td.known{background:#fff1c2}td.surprise{background:#f8c9c9}
td.skipped{background:#eee;color:#666}td.flaky{background:#e9d3f5}
summary{cursor:pointer;white-space:nowrap}details[open]{min-width:28em}
pre{font-size:12px;background:#fafafa;padding:4px;overflow-x:auto}.t{color:#666;font-size:12px}
.legend span{padding:2px 8px;margin-right:6px;border:1px solid #ccc}
)";

}  // namespace

std::string html_matrix(const RunResult& run) {
  const Summary s = summarise(run);
  std::string out =
      "<!doctype html><html><head><meta charset=utf-8><title>reapcheck matrix</title>";
  out += std::string("<style>") + kStyle + "</style></head><body>";
  out += fmt::format(
      "<h1>reapcheck</h1><p>{} cells: {} as expected, {} unexpected, {} inconsistent across "
      "repeats, {} skipped; grace {} ms, {} run(s) each, {:.1f} s.</p>",
      s.cells.size(), s.cells.size() - s.unexpected() - s.inconsistent(), s.unexpected(),
      s.inconsistent(), s.skipped(), run.grace_ms, run.repeat, run.wall_s);
  out +=
      "<p class=legend><span class=pass style='background:#dff3df'>pass</span>"
      "<span style='background:#fff1c2'>known weakness</span>"
      "<span style='background:#f8c9c9'>differs from expectation</span>"
      "<span style='background:#e9d3f5'>repeats disagree</span>"
      "<span style='background:#eee'>skipped</span> Click a cell for its evidence.</p>";
  out += "<table><thead><tr><th>scenario</th>";
  for (const auto& r : s.reapers) out += "<th>" + escape(r) + "</th>";
  out += "</tr></thead><tbody>";
  for (const auto& scenario : s.scenarios) {
    out += "<tr><td class=s>" + escape(scenario) + "</td>";
    for (const auto& r : s.reapers) {
      const Cell* c = s.find(scenario, r);
      if (c == nullptr) {
        out += "<td></td>";
        continue;
      }
      std::string label(to_string(c->verdict()));
      if (!c->consistent()) label = "flaky";
      out += fmt::format(
          "<td class={} data-scenario=\"{}\" data-reaper=\"{}\"><details><summary>{}</summary>",
          cell_class(*c), escape(scenario), escape(r), label);
      out += evidence(*c->runs.front());
      out += "</details></td>";
    }
    out += "</tr>";
  }
  out += "</tbody></table></body></html>\n";
  return out;
}

void write_html_report(const RunResult& run, const std::filesystem::path& file) {
  write_text_file(file, html_matrix(run));
}

}  // namespace reapcheck
