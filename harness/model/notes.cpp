#include "harness/model/notes.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace reapcheck {
namespace {

// How one member of a fixture tree leaves the agent's reach or resists its kill, if it does.
std::vector<std::string> member_notes(const TreeNode& n) {
  std::vector<std::string> out;
  if (n.detached) {
    out.push_back(
        "spawned with `detached: true`, which makes node call setsid(): it leads a session and "
        "process group of its own, out of reach of any signal to the agent's group");
  }
  if (n.setsid) {
    out.push_back(
        "calls setsid(): it leads a session and process group of its own, out of reach of any "
        "signal to the agent's group or session");
  }
  if (n.setpgid) {
    out.push_back(
        "calls setpgid(0, 0): a process group of its own, so a kill of the agent's group misses "
        "it");
  }
  if (n.transient) {
    out.push_back("exits before the kill: its children are orphans, no longer below the agent");
  }
  if (std::find(n.ignore.begin(), n.ignore.end(), "TERM") != n.ignore.end()) {
    out.push_back("ignores SIGTERM: only SIGKILL ends it");
  }
  if (n.storm) out.push_back("forks replacements when it gets SIGTERM");
  if (!n.rename.empty()) out.push_back(fmt::format("renames itself to '{}'", n.rename));
  if (n.stop_self) out.push_back("is stopped (SIGSTOP) when the kill comes");
  return out;
}

void walk(const TreeNode& n, std::vector<std::string>& out) {
  for (const auto& note : member_notes(n)) out.push_back(fmt::format("{}: {}", n.role, note));
  for (const auto& c : n.children) walk(c, out);
}

size_t weaknesses(const ExpectationBook& book, const std::string& reaper) {
  const ReaperExpectations* r = book.find(reaper);
  return r == nullptr ? 0 : r->known.size() + r->skip.size();
}

}  // namespace

std::vector<std::string> escape_notes(const Scenario& scenario) {
  std::vector<std::string> out;
  if (scenario.agent) {
    for (const auto& [role, how] : scenario.agent->escapes) {
      out.push_back(fmt::format("{}: {}", role, how));
    }
    return out;
  }
  walk(scenario.tree, out);
  return out;
}

ScenarioNotes scenario_notes(const Scenario& scenario, const ExpectationBook& book,
                             const std::vector<CatalogueEntry>& catalogue) {
  ScenarioNotes notes{scenario.description, escape_notes(scenario), {}, {}};
  // A project's own command: no expectations file knows it, so no reaper is known to pass it
  // until one has run it.
  if (scenario.agent && scenario.agent->observed()) return notes;
  std::vector<const CatalogueEntry*> passing;
  for (const auto& r : catalogue) {
    if (book.expected(scenario.id, r.id).verdict == Verdict::pass &&
        book.skip_reason(scenario.id, r.id) == nullptr) {
      passing.push_back(&r);
    }
  }
  std::stable_sort(passing.begin(), passing.end(),
                   [&](const CatalogueEntry* a, const CatalogueEntry* b) {
                     return weaknesses(book, a->id) < weaknesses(book, b->id);
                   });
  for (const CatalogueEntry* r : passing) notes.passing.push_back(r->id);
  if (!passing.empty()) notes.technique = passing.front()->technique;
  return notes;
}

}  // namespace reapcheck

namespace reapcheck {

std::vector<CatalogueEntry> most_robust_first(std::vector<CatalogueEntry> catalogue,
                                              const ExpectationBook& book) {
  std::stable_sort(catalogue.begin(), catalogue.end(),
                   [&](const CatalogueEntry& a, const CatalogueEntry& b) {
                     return weaknesses(book, a.id) < weaknesses(book, b.id);
                   });
  return catalogue;
}

}  // namespace reapcheck
