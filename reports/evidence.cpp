#include "reports/evidence.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <sstream>

#include "reports/process_forest.h"

namespace reapcheck {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

}  // namespace

std::vector<EvidenceSection> evidence_sections(const CaseResult& c) {
  std::vector<EvidenceSection> out;
  if (!c.survivors.empty()) {
    out.push_back({"survivors", lines_of(process_forest(c.survivors, "")), true});
  }
  if (!c.late.empty()) {
    EvidenceSection s{"alive and not dying when the reaper reported done", {}, false};
    for (const auto& l : c.late) {
      s.lines.push_back(fmt::format("{} (pid {}): {}", l.process.role, l.process.pid,
                                    l.died_after_ms >= 0
                                        ? fmt::format("died {:.0f} ms later", l.died_after_ms)
                                        : std::string("still alive at the settle deadline")));
    }
    out.push_back(std::move(s));
  }
  if (!c.bystanders_hit.empty()) {
    EvidenceSection s{"bystanders hit", {}, false};
    for (const auto& b : c.bystanders_hit) {
      s.lines.push_back(fmt::format("{} (pid {}) got {} {}", b.role, b.pid, b.signal, b.sender()));
    }
    out.push_back(std::move(s));
  }
  EvidenceSection sent{"signals from the reaper's side (the ledger)", {}, false};
  for (const auto& r : c.signals) {
    if (r.counts()) sent.lines.push_back(r.summary());
  }
  if (!sent.lines.empty()) out.push_back(std::move(sent));
  if (!c.reaper_left_running.empty()) {
    EvidenceSection s{"the reaper's own processes still running when it returned", {}, false};
    for (const auto& p : c.reaper_left_running) {
      s.lines.push_back(fmt::format("pid {}: {}", p.pid, p.command_line()));
    }
    out.push_back(std::move(s));
  }
  if (c.race) out.push_back({"race", {c.race->detail}, false});
  if (!c.missing_evidence.empty()) out.push_back({"evidence missing", c.missing_evidence, false});
  if (!c.reaper_steps.empty()) out.push_back({"reaper steps", c.reaper_steps, false});
  return out;
}

std::string evidence_text(const CaseResult& c, const std::string& indent) {
  std::string out;
  for (const auto& s : evidence_sections(c)) {
    out += fmt::format("{}{}:\n", indent, s.title);
    for (const auto& line : s.lines) out += fmt::format("{}  {}\n", indent, line);
  }
  return out;
}

}  // namespace reapcheck
