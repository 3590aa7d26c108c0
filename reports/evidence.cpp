#include "reports/evidence.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>
#include <set>
#include <sstream>

#include "harness/model/reaper_name.h"
#include "reports/process_forest.h"

namespace reapcheck {
namespace {

constexpr size_t kSummaryWidth = 300;  // a CI tool's headline: one line, a few clauses
constexpr size_t kArgvInSummary = 40;
constexpr size_t kNamedInSummary = 2;  // processes named in the headline before "and N more"
constexpr size_t kArgvInLedger = 24;   // a ledger record's sender argv, so its target shows
constexpr size_t kHintWidth = kEvidenceLimits.width + 40;  // "reapers that pass it: ..."

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The first kEvidenceLimits.processes of `lines`, each cut to `width`, and how many were left.
std::vector<std::string> bounded(const std::vector<std::string>& lines, std::string_view what,
                                 std::string_view listed_in, size_t width = kEvidenceLimits.width) {
  std::vector<std::string> out;
  for (size_t i = 0; i < lines.size() && i < kEvidenceLimits.processes; ++i) {
    out.push_back(cut(lines[i], width));
  }
  if (lines.size() > kEvidenceLimits.processes) {
    out.push_back(
        more_than_shown(lines.size() - kEvidenceLimits.processes, what, lines.size(), listed_in));
  }
  return out;
}

// argv as a headline shows it: paths by their last component ("perl tree.pl spec.json").
std::string short_argv(const std::vector<std::string>& argv) {
  std::vector<std::string> words;
  for (const auto& a : argv) {
    const size_t slash = a.find_last_of('/');
    words.push_back(slash == std::string::npos || slash + 1 == a.size() ? a : a.substr(slash + 1));
  }
  return cut(fmt::format("{}", fmt::join(words, " ")), kArgvInSummary);
}

// "a, b and 3 more": the first few of `items`, then how many were left out.
std::string first_few(const std::vector<std::string>& items) {
  return first_items(items, std::numeric_limits<size_t>::max(), kNamedInSummary);
}

// A headline's sender: "pid 9 (sh -c my-reaper…)"; the reaper host by the case's reaper,
// "pgroup (pid 4)", since its argv is reapcheck's own.
std::string sender_clause(const CaseResult& c, const SignalRecord& r) {
  if (r.from_reaper_host()) {
    return fmt::format("{} (pid {})", shown_reaper(c.reaper), r.sender.pid);
  }
  return fmt::format("pid {} ({})", r.sender.pid, short_argv(r.sender_argv));
}

// Who outside the tree got what from whom, from the ledger (or, without it, the bystanders).
std::vector<std::string> hit_clauses(const CaseResult& c) {
  std::vector<std::string> hits;
  std::set<std::string> seen;
  for (const auto& r : c.signals) {
    if (!r.hit_outside()) continue;
    for (const auto& p : r.reached) {
      if (p.kind != Party::Kind::bystander && p.kind != Party::Kind::harness) continue;
      std::string clause = fmt::format("{} got {} from {}", p.role, r.signal, sender_clause(c, r));
      if (seen.insert(clause).second) hits.push_back(std::move(clause));
    }
  }
  if (hits.empty()) {
    for (const auto& b : c.bystanders_hit) {
      hits.push_back(fmt::format("{} (pid {}) got {} {}", b.role, b.pid, b.signal, b.sender()));
    }
  }
  return hits;
}

std::vector<std::string> stray_clauses(const CaseResult& c) {
  std::vector<std::string> out;
  for (const auto& r : c.signals) {
    if (r.stray()) {
      out.push_back(fmt::format("{} to {} where nothing lived, from {}", r.signal, r.target,
                                sender_clause(c, r)));
    }
  }
  return out;
}

std::vector<std::string> late_clauses(const CaseResult& c) {
  std::vector<std::string> out;
  for (const auto& l : c.late) {
    out.push_back(
        fmt::format("{} (pid {}) alive when the reaper returned{}", l.process.role, l.process.pid,
                    l.died_after_ms >= 0 ? fmt::format(", died {:.0f} ms later", l.died_after_ms)
                                         : std::string()));
  }
  return out;
}

EvidenceSection survivors_section(const CaseResult& c, std::string_view listed_in) {
  const size_t shown = std::min(c.survivors.size(), kEvidenceLimits.processes);
  const std::vector<ProcessRecord> first(c.survivors.begin(),
                                         c.survivors.begin() + static_cast<std::ptrdiff_t>(shown));
  EvidenceSection s{"survivors", lines_of(process_forest(first, "", kEvidenceLimits.width)), true};
  if (c.survivors.size() > shown) {
    s.lines.push_back(
        more_than_shown(c.survivors.size() - shown, "", c.survivors.size(), listed_in));
  }
  return s;
}

std::vector<std::string> late_lines(const CaseResult& c) {
  std::vector<std::string> out;
  for (const auto& l : c.late) {
    out.push_back(fmt::format("{} (pid {}): {}", l.process.role, l.process.pid,
                              l.on_its_own ? std::string("exited by itself before the return, "
                                                         "never signalled by the reaper")
                              : l.died_after_ms >= 0
                                  ? fmt::format("died {:.0f} ms later", l.died_after_ms)
                                  : std::string("still alive at the settle bound (--settle)")));
  }
  return out;
}

template <typename T, typename Show>
std::vector<std::string> each(const std::vector<T>& items, Show show) {
  std::vector<std::string> out;
  out.reserve(items.size());
  for (const auto& item : items) out.push_back(show(item));
  return out;
}

// "…/perl/tree.pl" for a path of more than two components after its first; others unchanged.
std::string last_two_components(const std::string& word) {
  const size_t last = word.find_last_of('/');
  if (last == std::string::npos || last == 0) return word;
  const size_t before = word.find_last_of('/', last - 1);
  if (before == std::string::npos || before == 0) return word;
  return "…" + word.substr(before);
}

}  // namespace

std::string fitted_argv(const std::vector<std::string>& argv, size_t width) {
  std::string whole = fmt::format("{}", fmt::join(argv, " "));
  if (whole.size() <= width) return whole;
  std::vector<std::string> words;
  words.reserve(argv.size());
  for (size_t i = 0; i < argv.size(); ++i) {
    // The program keeps its path (/usr/bin/perl); its arguments' paths are shortened.
    words.push_back(i == 0 ? argv[i] : last_two_components(argv[i]));
  }
  return cut(fmt::format("{}", fmt::join(words, " ")), width);
}

std::string more_than_shown(size_t left, std::string_view what, size_t all,
                            std::string_view listed_in) {
  const std::string more = fmt::format("… and {} more{}{}", left, what.empty() ? "" : " ", what);
  if (listed_in.empty()) {
    return fmt::format("{}, {} in all (--out DIR writes every one to results.json)", more, all);
  }
  return fmt::format("{} ({} lists all {})", more, listed_in, all);
}

std::string short_reason(const CaseResult& c) {
  return fitted_reason(c.reason, kEvidenceLimits.reason);
}

namespace {

// evidence_summary() within `width` characters; the reason alone (a setup-error's, which may end
// with the agent's output) keeps its end.
std::string summary_within(const CaseResult& c, size_t width) {
  std::vector<std::string> parts;
  if (auto hits = hit_clauses(c); !hits.empty()) parts.push_back(first_few(hits));
  if (c.verdict == Verdict::reaper_error || c.verdict == Verdict::reaper_timeout) {
    parts.push_back(c.reaper_outcome.message);
  }
  if (!c.survivors.empty()) {
    parts.push_back(first_few(each(c.survivors,
                                   [](const ProcessRecord& p) {
                                     return fmt::format("{} (pid {}, {})", p.role, p.pid,
                                                        short_argv(p.argv));
                                   })) +
                    " survived");
  }
  // Why what the supervisor held was never signalled: said beside what survived it.
  if (std::string killed = c.reaper_outcome.supervisor_killed();
      !killed.empty() && c.verdict != Verdict::pass) {
    parts.push_back(std::move(killed));
  }
  for (const auto& p : c.open_ports) {
    parts.push_back(fmt::format("port {} ({}) held{}", p.port, p.role,
                                p.pid != 0 ? fmt::format(" by pid {}", p.pid) : std::string()));
  }
  if (c.verdict == Verdict::stray_signal) parts.push_back(first_few(stray_clauses(c)));
  if (c.verdict == Verdict::late) parts.push_back(first_few(late_clauses(c)));
  if (parts.empty()) return fitted_reason(c.reason, width);
  return cut(fmt::format("{}", fmt::join(parts, "; ")), width);
}

}  // namespace

std::string evidence_summary(const CaseResult& c) {
  return summary_within(c, kSummaryWidth);
}

std::string evidence_brief(const CaseResult& c, size_t width) {
  if (c.verdict == Verdict::reaper_error || c.verdict == Verdict::reaper_timeout) {
    return cut(c.reaper_outcome.message, width);
  }
  std::string head;
  std::vector<std::string> items;
  if (c.verdict == Verdict::bystander_hit) {
    items = hit_clauses(c);
  } else if (c.verdict == Verdict::leak && !c.survivors.empty()) {
    head = "survived: ";
    items = each(c.survivors,
                 [](const ProcessRecord& p) { return fmt::format("{} (pid {})", p.role, p.pid); });
  } else if (c.verdict == Verdict::stray_signal) {
    items = stray_clauses(c);
  } else if (c.verdict == Verdict::late) {
    items = late_clauses(c);
  }
  if (items.empty()) return summary_within(c, std::min(width, kSummaryWidth));
  return head + first_items(items, width - std::min(width, text_width(head)));
}

std::vector<EvidenceSection> evidence_sections(const CaseResult& c, std::string_view listed_in) {
  std::vector<EvidenceSection> out;
  if (!c.survivors.empty()) out.push_back(survivors_section(c, listed_in));
  if (!c.late.empty()) {
    out.push_back({"alive and not dying when the reaper reported done",
                   bounded(late_lines(c), "members", listed_in), false});
  }
  if (!c.bystanders_hit.empty()) {
    out.push_back({"bystanders hit",
                   bounded(each(c.bystanders_hit,
                                [](const BystanderHit& b) {
                                  return fmt::format("{} (pid {}) got {} {}", b.role, b.pid,
                                                     b.signal, b.sender());
                                }),
                           "hits", listed_in),
                   false});
  }
  std::vector<std::string> sent;
  for (const auto& r : c.signals) {
    if (r.counts()) sent.push_back(r.summary(kArgvInLedger, std::string(shown_reaper(c.reaper))));
  }
  if (!sent.empty()) {
    // A record names its sender, the call and what it reached: wider than a forest row.
    out.push_back({"signals from the reaper's side (the ledger)",
                   bounded(sent, "calls", listed_in, kEvidenceLimits.width * 3 / 2), false});
  }
  if (!c.reaper_left_running.empty()) {
    out.push_back({"the reaper's own processes still running when it returned",
                   bounded(each(c.reaper_left_running,
                                [](const ProcessRecord& p) {
                                  return fmt::format("pid {}: {}", p.pid, p.command_line());
                                }),
                           "processes", listed_in),
                   false});
  }
  if (c.race) out.push_back({"race", bounded({c.race->detail}, "lines", listed_in), false});
  if (!c.missing_evidence.empty()) {
    out.push_back({"evidence missing", bounded(c.missing_evidence, "gaps", listed_in), false});
  }
  if (!c.reaper_steps.empty()) {
    out.push_back({"reaper steps", bounded(c.reaper_steps, "steps", listed_in), false});
  }
  // A label names the reaper everywhere else: its command is said once, here.
  if (const LabelledReaper split = split_reaper_label(c.reaper); !split.label.empty()) {
    out.push_back({fmt::format("reaper {}", split.label), {std::string(split.reaper)}, false});
  }
  return out;
}

std::string stale_declaration(const CaseResult& c) {
  if (c.verdict != Verdict::pass || c.expected == Verdict::pass) return {};
  const std::string where = c.expected_where.empty() ? "its expectations file" : c.expected_where;
  return fmt::format(
      "stale declaration: {} declares {} here, and it passed: delete '{}' from that line (the "
      "weakness is fixed, or no longer shows here)",
      where, to_string(c.expected), c.scenario);
}

std::vector<std::string> lesson_lines(const CaseResult& c, const ScenarioNotes* notes) {
  std::vector<std::string> out;
  if (notes != nullptr && !notes->description.empty()) {
    out.push_back("scenario: " + notes->description);
  }
  if (const std::string stale = stale_declaration(c); !stale.empty()) {
    out.push_back(stale);
  } else if (!c.expected_reason.empty()) {
    out.push_back(fmt::format("why {} fails it: {}", shown_reaper(c.reaper), c.expected_reason));
  }
  if (notes == nullptr) return out;
  std::vector<std::string> others;
  for (const auto& id : notes->passing) {
    if (id != c.reaper) others.push_back(id);
  }
  if (others.empty()) return out;
  // The flag to try is never what is cut: reapers are left out of the list, whole, instead.
  const std::string head = "reapers that pass it: ";
  const std::string tail = fmt::format(" — try --reaper {}", others.front());
  const size_t room = kHintWidth - std::min(kHintWidth, text_width(head) + text_width(tail));
  out.push_back(head + first_items(others, room) + tail);
  return out;
}

std::string evidence_text(const CaseResult& c, const std::string& indent,
                          std::string_view listed_in) {
  std::string out;
  for (const auto& s : evidence_sections(c, listed_in)) {
    out += fmt::format("{}{}:\n", indent, s.title);
    for (const auto& line : s.lines) out += fmt::format("{}  {}\n", indent, line);
  }
  return out;
}

}  // namespace reapcheck
