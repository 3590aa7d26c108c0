#include "harness/model/guide.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>

#include "harness/model/notes.h"

namespace reapcheck {
namespace {

// The scenario whose tree (1,000 members, one level) is the bench's wide one: its cells stand in
// for a bench figure the bench did not measure.
constexpr const char* kWideTree = "wide-tree";

}  // namespace

Guide::Guide(std::vector<GuideReaper> reapers, std::vector<std::string> scenarios,
             const ExpectationBook& book,
             std::map<std::pair<std::string, std::string>, std::string> inapplicable, GuideRun run,
             GuideBench bench)
    : reapers_(std::move(reapers)),
      scenarios_(std::move(scenarios)),
      book_(book),
      inapplicable_(std::move(inapplicable)),
      run_(std::move(run)),
      bench_(std::move(bench)) {
  for (const GuideCell& c : run_.cells) cells_[{c.scenario, c.reaper}] = &c;
}

Declared Guide::declared(const std::string& scenario, const std::string& reaper) const {
  if (const std::string* why = book_.skip_reason(scenario, reaper)) return {"skipped", *why};
  if (auto it = inapplicable_.find({scenario, reaper}); it != inapplicable_.end()) {
    return {"skipped", it->second};
  }
  const Expectation e = book_.expected(scenario, reaper);
  if (is_weakness(e.verdict)) return {expected_text(e.verdict, e.also), e.reason};
  return {"pass", ""};
}

const GuideCell* Guide::cell(const std::string& scenario, const std::string& reaper) const {
  const auto it = cells_.find({scenario, reaper});
  return it == cells_.end() ? nullptr : it->second;
}

std::vector<std::string> Guide::stale_cells() const {
  std::vector<std::string> out;
  for (const std::string& s : scenarios_) {
    for (const GuideReaper& r : reapers_) {
      const GuideCell* c = cell(s, r.id);
      // Not in the run: not yet measured, no evidence either way. Declared not judged: the same.
      if (c == nullptr || declared(s, r.id).verdict == "skipped") continue;
      const Expectation e = book_.expected(s, r.id);
      const std::vector<Verdict> seen = c->seen();
      const bool allowed = std::all_of(seen.begin(), seen.end(), [&](Verdict v) {
        return v == Verdict::skipped || v == e.verdict || is_declared_form(v, e.verdict, e.also);
      });
      if (!allowed) {
        out.push_back(fmt::format("{} × {}: the run saw {}, {} is declared", s, r.id,
                                  fmt::join(verdict_names(seen), " "),
                                  expected_text(e.verdict, e.also)));
      }
    }
  }
  return out;
}

bool Guide::measured(const std::string& reaper) const {
  return std::any_of(run_.cells.begin(), run_.cells.end(),
                     [&](const GuideCell& c) { return c.reaper == reaper; });
}

std::vector<std::string> Guide::unmeasured_scenarios(const std::string& reaper) const {
  std::vector<std::string> out;
  for (const std::string& s : scenarios_) {
    if (cell(s, reaper) == nullptr) out.push_back(s);
  }
  return out;
}

std::vector<Guide::Failure> Guide::failures(const std::string& reaper) const {
  std::vector<Failure> out;
  for (const std::string& s : scenarios_) {
    Declared d = declared(s, reaper);
    if (d.verdict == "pass") continue;
    // A weakness the run could not judge here (a program missing) is reported as skipped.
    const GuideCell* c = cell(s, reaper);
    if (c != nullptr && c->verdict == Verdict::skipped && d.verdict != "skipped") {
      d = {"skipped", c->reason};
    }
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const Failure& f) { return f.reason == d.reason; });
    if (it == out.end()) it = out.insert(out.end(), Failure{d.reason, d.verdict, {}});
    it->scenarios.push_back(s);
  }
  return out;
}

std::vector<std::string> Guide::fails(const std::string& reaper) const {
  std::vector<std::string> out;
  for (const Failure& f : failures(reaper)) {
    if (f.verdict != "skipped") out.insert(out.end(), f.scenarios.begin(), f.scenarios.end());
  }
  return out;
}

int Guide::passes(const std::string& reaper) const {
  return static_cast<int>(std::count_if(scenarios_.begin(), scenarios_.end(), [&](auto& s) {
    const GuideCell* c = cell(s, reaper);
    return declared(s, reaper).verdict == "pass" && c != nullptr && c->verdict == Verdict::pass &&
           c->verdicts.empty();
  }));
}

std::vector<std::string> Guide::flaky(const std::string& reaper) const {
  std::vector<std::string> out;
  for (const std::string& s : scenarios_) {
    const GuideCell* c = cell(s, reaper);
    if (c != nullptr && !c->verdicts.empty()) {
      out.push_back(fmt::format("{} ({})", s, fmt::join(verdict_names(c->verdicts), ", ")));
    }
  }
  return out;
}

const BenchReap* Guide::bench_reap(const std::string& reaper, int members) const {
  const auto it = std::find_if(bench_.reap.begin(), bench_.reap.end(), [&](const BenchReap& b) {
    return b.reaper == reaper && b.shape == "wide" && b.members == members;
  });
  return it == bench_.reap.end() ? nullptr : &*it;
}

// The median of a wide-tree cell's times to all dead over the run's repeats; none when the tree
// outlived the case in any of them.
std::optional<double> Guide::run_median(const GuideCell& c) const {
  if (!c.all_dead_ms || c.all_dead_ms->empty()) return std::nullopt;
  std::vector<double> t = *c.all_dead_ms;
  std::sort(t.begin(), t.end());
  if (t.front() < 0) return std::nullopt;
  return t[(t.size() - 1) / 2];
}

std::string Guide::latency(const std::string& reaper, int members) const {
  if (const BenchReap* b = bench_reap(reaper, members)) {
    return b->ms ? fmt::format("{:.0f} ms", *b->ms) : fmt::format("never ({})", b->verdict);
  }
  // No bench figure at 1,000 (a --quick bench measures presets at 100 only): the run's
  // wide-tree case, 1,000 members, the median of its repeats, marked as such.
  const GuideCell* c = members == 1000 ? cell(kWideTree, reaper) : nullptr;
  if (c != nullptr && c->verdict == Verdict::skipped) return "not judged (skipped)";
  if (c != nullptr && c->all_dead_ms) {
    const std::optional<double> ms = run_median(*c);
    return ms ? fmt::format("{:.0f} ms (run)", *ms)
              : fmt::format("never ({})", to_string(c->verdict));
  }
  return "not measured";
}

std::vector<std::string> Guide::most_robust_first(const std::vector<std::string>& ids) const {
  std::vector<CatalogueEntry> entries(ids.size());
  std::transform(ids.begin(), ids.end(), entries.begin(), [](const std::string& id) {
    return CatalogueEntry{id, ""};
  });
  entries = reapcheck::most_robust_first(std::move(entries), book_);
  std::vector<std::string> out(entries.size());
  std::transform(entries.begin(), entries.end(), out.begin(),
                 [](const CatalogueEntry& e) { return e.id; });
  return out;
}

std::optional<Guide::BothWays> Guide::run_against_bench() const {
  std::vector<std::string> ids;
  for (const GuideReaper& r : reapers_) ids.push_back(r.id);
  for (const std::string& id : most_robust_first(ids)) {
    const GuideCell* c = cell(kWideTree, id);
    const BenchReap* b = bench_reap(id, 1000);
    if (c == nullptr || b == nullptr || !b->ms) continue;
    if (const std::optional<double> run = run_median(*c)) return BothWays{id, *run, *b->ms};
  }
  return std::nullopt;
}

std::vector<Guide::Recommendation> Guide::recommendations() const {
  std::vector<Recommendation> out;
  for (const char* kind : {"builtin", "supervises", "kills"}) {
    std::vector<std::string> ids;
    for (const GuideReaper& r : reapers_) {
      const char* its = r.builtin ? "builtin" : r.supervises ? "supervises" : "kills";
      if (std::string_view(its) == kind) ids.push_back(r.id);
    }
    if (ids.empty()) continue;
    ids = most_robust_first(ids);
    // The fewest failures among the measured ones; an unmeasured reaper is never chosen.
    std::optional<size_t> fewest;
    for (const std::string& id : ids) {
      if (measured(id)) fewest = std::min(fewest.value_or(SIZE_MAX), fails(id).size());
    }
    Recommendation rec{kind, {}, {}};
    for (const std::string& id : ids) {
      const bool chosen = measured(id) && fewest && fails(id).size() == *fewest;
      (chosen ? rec.chosen : rec.others).push_back(id);
    }
    out.push_back(std::move(rec));
  }
  return out;
}

}  // namespace reapcheck
