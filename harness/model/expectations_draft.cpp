#include "harness/model/expectations_draft.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <optional>
#include <tuple>

#include "harness/model/reaper_name.h"
#include "harness/model/summary.h"

namespace reapcheck {
namespace {

// One [[known]] or [[skip]] of the draft: its key, then the scenarios it covers.
struct Entry {
  bool skip = false;
  Verdict verdict = Verdict::pass;
  std::vector<Verdict> also;
  std::string reason;
  auto key() const { return std::tie(skip, verdict, also, reason); }
  bool operator<(const Entry& o) const { return key() < o.key(); }
};

// A TOML basic string.
std::string toml_string(std::string_view s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20 || c == 0x7f) {
      out += fmt::format("\\u{:04x}", c);
    } else {
      out += ch;
    }
  }
  return out + '"';
}

std::string entry_text(const Entry& e, const std::vector<std::string>& scenarios,
                       const std::string& shown) {
  std::string out = e.skip ? "\n[[skip]]\n" : "\n[[known]]\n";
  if (!e.skip) out += fmt::format("verdict = {}\n", toml_string(to_string(e.verdict)));
  if (!e.also.empty()) {
    std::vector<std::string> names;
    for (Verdict v : e.also) names.push_back(toml_string(to_string(v)));
    out += fmt::format("also = [{}]\n", fmt::join(names, ", "));
  }
  if (e.reason.empty()) {
    out += fmt::format(
        "# Why does {} {} here? Write it: an empty reason is refused.\n", shown,
        e.skip ? "not apply" : std::string("show ") + std::string(to_string(e.verdict)));
  }
  out += fmt::format("reason = {}\n", toml_string(e.reason));
  // One scenario a line: a stale one is reported by its line, to delete.
  out += "scenarios = [\n";
  for (const auto& s : scenarios) out += fmt::format("  {},\n", toml_string(s));
  return out + "]\n";
}

// The weakness a cell showed: its most frequent failing verdict, the others its `also`.
std::optional<Entry> weakness_of(const Cell& cell) {
  Entry e;
  int most = 0;
  for (const auto& [v, n] : cell.verdicts) {
    if (is_weakness(v) && n > most) {
      e.verdict = v;
      most = n;
    }
  }
  if (most == 0) return std::nullopt;
  for (const auto& [v, n] : cell.verdicts) {
    if (is_weakness(v) && v != e.verdict) e.also.push_back(v);
  }
  return e;
}

}  // namespace

ExpectationsDraft draft_expectations(const RunResult& run, const std::string& reaper,
                                     const ReaperExpectations* earlier) {
  const std::string name = reaper_name(reaper);
  const Summary summary = summarise(run);
  std::map<Entry, std::vector<std::string>> entries;
  std::vector<std::string> setup_errors;
  ExpectationsDraft draft;
  for (const Cell& cell : summary.cells) {
    if (cell.reaper != reaper) continue;
    const CaseResult& first = *cell.runs.front();
    std::optional<Entry> e = weakness_of(cell);
    if (!e && first.blocked && first.blocked->kind == Blocker::Kind::declared_skip) {
      e = Entry{true, Verdict::skipped, {}, {}};
      if (earlier != nullptr) {
        if (auto it = earlier->skip.find(cell.scenario); it != earlier->skip.end()) {
          e->reason = it->second;
        }
      }
    } else if (e && earlier != nullptr) {
      auto it = earlier->known.find(cell.scenario);
      if (it != earlier->known.end() && it->second.verdict == e->verdict)
        e->reason = it->second.reason;
    }
    if (cell.verdicts.count(Verdict::setup_error) != 0) setup_errors.push_back(cell.scenario);
    if (!e) continue;
    entries[*e].push_back(cell.scenario);
    ++draft.declared;
    if (e->reason.empty()) ++draft.to_explain;
  }
  const std::string shown(shown_reaper(reaper));
  draft.text = fmt::format(
      "# What {} is known to fail, drafted by `reapcheck run --write-expectations` from a run "
      "of\n# {} ({} cases). Use it with `reapcheck run --expectations FILE`.\n"
      "reaper = {}\n",
      shown, run.info.started, run.cases.size(), toml_string(name));
  for (const auto& [e, scenarios] : entries) draft.text += entry_text(e, scenarios, shown);
  if (!setup_errors.empty()) {
    draft.undeclared = fmt::format(
        "setup-error in {} (the harness or this machine failed, not the reaper: no file declares "
        "it)",
        fmt::join(setup_errors, ", "));
  }
  return draft;
}

}  // namespace reapcheck
