#include "reports/html_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

#include "harness/model/reaper_name.h"
#include "harness/model/summary.h"
#include "reports/cell_label.h"
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

// The anchor of a cell: stable across runs, so a link to it can be pasted into an issue.
std::string cell_id(const std::string& scenario, const std::string& reaper) {
  std::string id = "cell-" + scenario + "--" + reaper;
  for (char& ch : id) {
    if (std::isalnum(static_cast<unsigned char>(ch)) == 0 && ch != '-' && ch != '_') ch = '_';
  }
  return id;
}

std::string sections_html(const CaseResult& c) {
  std::string out;
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
  return out;
}

std::string evidence(const RunResult& run, const CaseResult& c) {
  std::string out =
      fmt::format("<p><b>{}</b>, expected {}. {}</p>", to_string(c.verdict),
                  expected_text(c.expected, c.expected_also), escape(short_reason(c)));
  const auto notes = run.scenarios.find(c.scenario);
  const std::vector<std::string> lesson =
      lesson_lines(c, notes == run.scenarios.end() ? nullptr : &notes->second);
  if (!lesson.empty()) {
    out += "<ul class=lesson>";
    for (const auto& line : lesson) out += "<li>" + escape(line) + "</li>";
    out += "</ul>";
  }
  out += sections_html(c);
  out += fmt::format(
      "<p class=t>kill {:.0f} ms · all dead {} · case {:.0f} ms</p>", c.kill_ms,
      c.all_dead_ms < 0 ? std::string("never") : fmt::format("{:.0f} ms", c.all_dead_ms),
      c.case_ms);
  return out;
}

// Evidence opens in a panel positioned over the page, out of the table's flow, so opening a cell
// never widens its column or moves the others.
constexpr const char* kStyle = R"(
body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse}th,td{border:1px solid #ccc;padding:4px 6px;vertical-align:top}
th{background:#f4f4f4;position:sticky;top:0;z-index:1}td.s{font-weight:600;white-space:nowrap}
td{position:relative;white-space:nowrap}
td.pass{background:#dff3df}td.known{background:#fff1c2}td.surprise{background:#f8c9c9}
td.skipped{background:#eee;color:#666}td.flaky{background:#e9d3f5}
td.surprise summary,td.flaky summary{font-weight:700}
td:target{outline:3px solid #36c}
summary{cursor:pointer}summary a{color:#999;text-decoration:none;margin-left:.4em}
.ev{position:absolute;left:0;top:100%;z-index:3;width:min(48em,80vw);white-space:normal;
background:#fff;border:1px solid #999;box-shadow:0 4px 14px rgba(0,0,0,.25);padding:4px 10px}
pre{font-size:12px;background:#fafafa;padding:4px;overflow-x:auto}.t{color:#666;font-size:12px}
.legend span{padding:2px 8px;margin-right:6px;border:1px solid #ccc}
.info{font-size:13px;color:#444}.info dt{font-weight:600;float:left;clear:left;width:7em}
.info dd{margin-left:7.5em}.filters label{margin-right:1em}
)";

// Filters work on data attributes and the `hidden` attribute; their state lives in the URL's
// fragment (#verdict=leak&reaper=pgroup&tag=npm), so a filtered view can be linked to. A
// fragment that names a cell opens it.
constexpr const char* kScript = R"(
(function(){
const sel=['verdict','reaper','tag'].map(k=>document.getElementById('f-'+k));
function apply(){
  const [v,r,t]=sel.map(s=>s.value);
  document.querySelectorAll('[data-reaper]').forEach(e=>{e.hidden=!!r&&e.dataset.reaper!==r});
  document.querySelectorAll('tbody tr').forEach(tr=>{
    const tagged=!t||tr.dataset.tags.split(' ').includes(t);
    const cells=[...tr.querySelectorAll('td[data-verdict]')].filter(td=>!td.hidden);
    const hit=!v||cells.some(td=>td.dataset.verdict===v||(v==='unexpected'&&td.dataset.unexpected));
    tr.hidden=!(tagged&&hit);});
  const q=sel.filter(s=>s.value).map(s=>s.id.slice(2)+'='+encodeURIComponent(s.value)).join('&');
  try{if(q||location.hash.indexOf('=')>0)history.replaceState(null,'',q?'#'+q:location.pathname);}
  catch(e){}}
const h=decodeURIComponent(location.hash.slice(1));
if(h.indexOf('=')>0){h.split('&').forEach(kv=>{const [k,v]=kv.split('=');
  const s=document.getElementById('f-'+k);if(s)s.value=v;});}
else if(h){const c=document.getElementById(h);if(c){const d=c.querySelector('details');if(d)d.open=true;}}
sel.forEach(s=>s.addEventListener('change',apply));apply();
})();
)";

std::string options_html(const std::string& id, const std::string& label,
                         const std::set<std::string>& values) {
  std::string out =
      fmt::format("<label>{} <select id=f-{}><option value=''>all</option>", label, id);
  for (const auto& v : values) out += fmt::format("<option>{}</option>", escape(v));
  return out + "</select></label>";
}

std::string filters_html(const RunResult& run, const Summary& s) {
  std::set<std::string> verdicts{"unexpected"};
  std::set<std::string> tags;
  for (const auto& c : run.cases) {
    verdicts.insert(std::string(to_string(c.verdict)));
    tags.insert(c.tags.begin(), c.tags.end());
  }
  std::set<std::string> reapers;
  for (const auto& r : s.reapers) reapers.emplace(shown_reaper(r));
  return "<p class=filters>" + options_html("verdict", "verdict", verdicts) +
         options_html("reaper", "reaper", reapers) + options_html("tag", "tag", tags) + "</p>";
}

std::string info_html(const RunResult& run) {
  const RunInfo& i = run.info;
  std::vector<std::string> options;
  for (const auto& [name, value] : i.options) options.push_back(fmt::format("{} {}", name, value));
  std::string out = "<dl class=info>";
  auto row = [&out](const char* name, const std::string& value) {
    if (!value.empty()) out += fmt::format("<dt>{}</dt><dd>{}</dd>", name, escape(value));
  };
  row("reapcheck", i.version);
  row("kernel", i.kernel);
  row("host", i.host);
  row("started", i.started.empty() ? "" : i.started + " UTC");
  row("options", fmt::format("{}", fmt::join(options, " · ")));
  row("shard", i.shard);
  return out + "</dl>";
}

std::string header_html(const RunResult& run, const Summary& s) {
  std::string out = fmt::format(
      "<h1>reapcheck</h1><p>{} cells: {} as expected, {} unexpected, {} inconsistent across "
      "repeats, {} skipped; grace {} ms, {} run(s) each, {:.1f} s.</p>",
      s.cells.size(), s.cells.size() - s.unexpected() - s.inconsistent(), s.unexpected(),
      s.inconsistent(), s.skipped(), run.grace_ms, run.repeat, run.wall_s);
  if (const std::string incomplete = incompleteness(run); !incomplete.empty()) {
    out +=
        fmt::format("<p class=incomplete><strong>INCOMPLETE:</strong> {}.</p>", escape(incomplete));
  }
  out += info_html(run);
  out +=
      "<p class=legend><span style='background:#dff3df'>pass</span>"
      "<span style='background:#fff1c2'>leak (known): a declared weakness</span>"
      "<span style='background:#f8c9c9'>LEAK, expected pass: differs from expectation</span>"
      "<span style='background:#e9d3f5'>FLAKY: repeats disagree</span>"
      "<span style='background:#eee'>skipped</span> Click a cell for its evidence; ¶ links to "
      "it.</p>";
  return out + filters_html(run, s);
}

std::string cell_html(const RunResult& run, const Cell& c) {
  const std::string id = cell_id(c.scenario, c.reaper);
  return fmt::format(
      "<td id={} class={} data-scenario=\"{}\" data-reaper=\"{}\" data-verdict=\"{}\"{}>"
      "<details><summary>{}<a href=\"#{}\" title=\"link to this cell\">¶</a></summary>"
      "<div class=ev>{}</div></details></td>",
      id, cell_class(c), escape(c.scenario), escape(std::string(shown_reaper(c.reaper))),
      to_string(c.verdict()), c.as_expected() ? "" : " data-unexpected=1", escape(cell_label(c)),
      id, evidence(run, *c.runs.front()));
}

std::string rows_html(const RunResult& run, const Summary& s) {
  std::string out;
  for (const auto& scenario : s.scenarios) {
    const Cell* any = nullptr;
    for (const auto& r : s.reapers) any = any != nullptr ? any : s.find(scenario, r);
    const auto& tags = any != nullptr ? any->runs.front()->tags : std::vector<std::string>{};
    out += fmt::format("<tr data-tags=\"{}\"><td class=s>{}</td>",
                       escape(fmt::format("{}", fmt::join(tags, " "))), escape(scenario));
    for (const auto& r : s.reapers) {
      const Cell* c = s.find(scenario, r);
      out += c == nullptr ? fmt::format("<td data-reaper=\"{}\"></td>", escape(r))
                          : cell_html(run, *c);
    }
    out += "</tr>";
  }
  return out;
}

}  // namespace

std::string html_matrix(const RunResult& run) {
  const Summary s = summarise(run);
  std::string out =
      "<!doctype html><html><head><meta charset=utf-8><title>reapcheck matrix</title>";
  out += std::string("<style>") + kStyle + "</style></head><body>";
  out += header_html(run, s);
  out += "<table><thead><tr><th>scenario</th>";
  for (const auto& r : s.reapers) {
    const std::string shown(shown_reaper(r));
    out += fmt::format("<th data-reaper=\"{}\">{}</th>", escape(shown), escape(shown));
  }
  out += "</tr></thead><tbody>" + rows_html(run, s) + "</tbody></table>";
  out += std::string("<script>") + kScript + "</script></body></html>\n";
  return out;
}

void write_html_report(const RunResult& run, const std::filesystem::path& file) {
  write_text_file(file, html_matrix(run));
}

}  // namespace reapcheck
