#include "reports/reproduce_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "reports/evidence.h"

namespace reapcheck {
namespace {

// The agent, or (for a command agent, which does not announce itself) a member that died with
// it: what an escaped process's session is compared with.
const ProcessRecord* agent_of(const CaseResult& c) {
  auto it = std::find_if(c.members.begin(), c.members.end(),
                         [](const ProcessRecord& p) { return p.role == "agent"; });
  if (it == c.members.end()) {
    it = std::find_if(c.members.begin(), c.members.end(), [&](const ProcessRecord& m) {
      return std::none_of(c.survivors.begin(), c.survivors.end(),
                          [&](const ProcessRecord& s) { return s.pid == m.pid; });
    });
  }
  return it == c.members.end() ? nullptr : &*it;
}

// How the scenario says `role` escapes, if it says.
std::vector<std::string> how_of(const std::string& role, const ScenarioNotes* notes) {
  std::vector<std::string> out;
  if (notes == nullptr) return out;
  for (const auto& e : notes->escapes) {
    if (e.rfind(role + ": ", 0) == 0) out.push_back(e.substr(role.size() + 2));
  }
  return out;
}

std::string escaped(const CaseResult& c, const ScenarioNotes* notes) {
  if (c.survivors.empty()) return {};
  const ProcessRecord* agent = agent_of(c);
  std::string out = "\nWhat escaped\n";
  size_t shown = 0;
  for (const auto& p : c.survivors) {
    if (++shown > kEvidenceLimits.processes) {
      out += fmt::format("  … and {} more (the forest below)\n", c.survivors.size() - shown + 1);
      break;
    }
    out += fmt::format("  {} (pid {}): {}\n", p.role, p.pid,
                       cut(p.command_line(), kEvidenceLimits.width - 20));
    out += fmt::format("    session {}, process group {}{}\n", p.sid, p.pgid,
                       agent != nullptr && p.sid != agent->sid
                           ? fmt::format(" — not the agent's ({})", agent->sid)
                           : std::string());
    for (const auto& how : how_of(p.role, notes)) out += "    how: " + how + "\n";
  }
  return out;
}

std::string ports(const CaseResult& c) {
  if (c.open_ports.empty()) return {};
  std::string out = "\nStill holding a port\n";
  for (const auto& p : c.open_ports) {
    const auto holder = std::find_if(c.survivors.begin(), c.survivors.end(),
                                     [&](const ProcessRecord& s) { return s.pid == p.pid; });
    out += fmt::format("  127.0.0.1:{} ({}) answers, held by {}\n", p.port, p.role,
                       p.pid == 0 ? std::string("an unknown process")
                       : holder != c.survivors.end()
                           ? fmt::format("pid {} ({}), which escaped above", p.pid, holder->role)
                           : fmt::format("pid {}", p.pid));
  }
  return out;
}

std::string advice(const CaseResult& c, const ScenarioNotes* notes) {
  std::string out;
  if (!c.expected_reason.empty()) {
    out += fmt::format("\nWhy {} misses it\n  {}\n", c.reaper, c.expected_reason);
  }
  if (notes == nullptr || c.verdict == Verdict::pass) return out;
  std::vector<std::string> others;
  for (const auto& id : notes->passing) {
    if (id != c.reaper) others.push_back(id);
  }
  if (others.empty()) return out;
  out += "\nWhat to change in your launcher\n";
  out += fmt::format("  Kill the tree the way {} does: {}\n", others.front(), notes->technique);
  out += fmt::format("  Reapers here that pass this scenario: {}\n", fmt::join(others, ", "));
  out += fmt::format("  Try it: reapcheck reproduce {} --reaper {}\n", c.scenario, others.front());
  return out;
}

}  // namespace

std::string reproduce_report(const CaseResult& c, const ScenarioNotes* notes) {
  std::string out = fmt::format("\n{} × {}: {} — {}\n", c.scenario, c.reaper, to_string(c.verdict),
                                evidence_summary(c));
  if (notes != nullptr && !notes->description.empty()) out += "  " + notes->description + "\n";
  out += escaped(c, notes) + ports(c) + advice(c, notes);
  if (c.survivors.empty() && c.open_ports.empty()) out += "\nNothing leaked.\n";
  out += "\nEvidence\n" + evidence_text(c, "  ");
  return out;
}

}  // namespace reapcheck
