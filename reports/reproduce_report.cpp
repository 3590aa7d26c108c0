#include "reports/reproduce_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <set>

#include "harness/model/reaper_name.h"
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

}  // namespace

std::optional<bool> reached(const CaseResult& c, const ProcessRecord& p) {
  const bool ledger_ran =
      std::none_of(c.missing_evidence.begin(), c.missing_evidence.end(),
                   [](const std::string& m) { return m.rfind("the signal ledger", 0) == 0; });
  if (!ledger_ran) return std::nullopt;
  return std::any_of(c.signals.begin(), c.signals.end(), [&](const SignalRecord& s) {
    return s.counts() && std::any_of(s.reached.begin(), s.reached.end(),
                                     [&](const Party& r) { return r.pid == p.pid; });
  });
}

Escape observed_escape(const ProcessRecord& p, const ProcessRecord& agent,
                       std::optional<bool> signalled) {
  if (signalled == false && p.sid == agent.sid && p.pgid == agent.pgid) {
    return {Escape::Kind::unfound,
            "no signal of the reaper's reached it: the reaper never found it (it looks by name, "
            "by command line, or in a snapshot that missed it)"};
  }
  std::string orphan = p.ppid == 1 ? "; its parent exited and init adopted it" : "";
  if (signalled == false) orphan += "; no signal of the reaper's reached it";
  if (p.sid != agent.sid) {
    return {Escape::Kind::session,
            "left the agent's session (setsid(): `detached: true`, setsid, a daemon), out of reach "
            "of any signal to the agent's group or session" +
                orphan};
  }
  if (p.pgid != agent.pgid) {
    return {Escape::Kind::group,
            "left the agent's process group (setpgid(), a shell's job control): a kill of the "
            "agent's group misses it" +
                orphan};
  }
  if (p.ppid == 1) {
    return {Escape::Kind::orphan,
            "its parent exited and init adopted it: a walk of parent links from the agent no "
            "longer finds it"};
  }
  return {Escape::Kind::resisted,
          "stayed in the agent's group and below it: what reached it did not end it (a handled or "
          "ignored SIGTERM with no SIGKILL after it)"};
}

namespace {

std::string escaped(const CaseResult& c, const ScenarioNotes* notes, std::string_view listed_in) {
  if (c.survivors.empty()) return {};
  const ProcessRecord* agent = agent_of(c);
  std::string out = "\nWhat escaped\n";
  size_t shown = 0;
  for (const auto& p : c.survivors) {
    if (++shown > kEvidenceLimits.processes) {
      out += "  " +
             more_than_shown(c.survivors.size() - shown + 1, "", c.survivors.size(), listed_in) +
             "\n";
      break;
    }
    out += fmt::format("  {} (pid {}): {}\n", p.role, p.pid,
                       cut(p.command_line(), kEvidenceLimits.width - 20));
    out += fmt::format("    session {}, process group {}{}\n", p.sid, p.pgid,
                       agent != nullptr && p.sid != agent->sid
                           ? fmt::format(" — not the agent's ({})", agent->sid)
                           : std::string());
    auto hows = how_of(p.role, notes);
    if (hows.empty() && agent != nullptr) hows = {observed_escape(p, *agent, reached(c, p)).how};
    for (const auto& how : hows) out += "    how: " + how + "\n";
  }
  return out;
}

// A setup-error's reason that ends with the agent's output (a command's own, or a fixture's
// log): the reason said before it, for the headline, and that output's last lines below, each
// kept to its end.
constexpr size_t kOutputLines = 20;

std::string output_end(const CaseResult& c) {
  const ReasonParts parts = split_output(c.reason);
  if (c.verdict != Verdict::setup_error || parts.output.empty()) return {};
  std::vector<std::string_view> lines;
  for (size_t from = 0; from <= parts.output.size();) {
    const size_t to = std::min(parts.output.find('\n', from), parts.output.size());
    lines.push_back(parts.output.substr(from, to - from));
    from = to + 1;
  }
  std::string out = parts.mark == kOutputEndMark ? "\nThe end of its output\n"
                                                 : "\nThe end of the fixture's log\n";
  const size_t first = lines.size() > kOutputLines ? lines.size() - kOutputLines : 0;
  if (first > 0) out += "  …\n";
  for (size_t i = first; i < lines.size(); ++i) {
    out += "  " + cut_front(lines[i], kEvidenceLimits.width * 2) + "\n";
  }
  return out;
}

std::string headline(const CaseResult& c) {
  const ReasonParts parts = split_output(c.reason);
  if (c.verdict == Verdict::setup_error && !parts.output.empty()) {
    return cut(parts.said, kEvidenceLimits.width * 3);
  }
  return evidence_summary(c);
}

std::string ports(const CaseResult& c) {
  if (c.open_ports.empty()) return {};
  std::string out = "\nStill holding a port\n";
  for (const auto& p : c.open_ports) {
    const auto holder = std::find_if(c.survivors.begin(), c.survivors.end(),
                                     [&](const ProcessRecord& s) { return s.pid == p.pid; });
    out += fmt::format("  localhost:{} ({}) answers, held by {}\n", p.port, p.role,
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
    out += fmt::format("\nWhy {} misses it\n  {}\n", shown_reaper(c.reaper), c.expected_reason);
  }
  if (notes == nullptr || c.verdict == Verdict::pass) return out;
  std::vector<std::string> others;
  for (const auto& id : notes->passing) {
    if (id != c.reaper) others.push_back(id);
  }
  if (others.empty()) return out;
  out += "\nWhat to change in your launcher\n";
  out += fmt::format("  Kill the tree the way {} does: {}\n", others.front(), notes->technique);
  out += fmt::format("  Reapers declared to pass this scenario (not run here): {}\n",
                     fmt::join(others, ", "));
  out += fmt::format("  Try it: reapcheck reproduce {} --reaper {}\n", c.scenario, others.front());
  return out;
}

}  // namespace

std::string reproduce_report(const CaseResult& c, const ScenarioNotes* notes,
                             std::string_view listed_in) {
  std::string out = fmt::format("\n{} × {}: {} — {}\n", c.scenario, shown_reaper(c.reaper),
                                to_string(c.verdict), headline(c));
  if (notes != nullptr && !notes->description.empty()) out += "  " + notes->description + "\n";
  out += output_end(c) + escaped(c, notes, listed_in) + ports(c) + advice(c, notes);
  // A case that never reached its kill (a setup-error) leaked nothing and has no evidence.
  const std::string evidence = evidence_text(c, "  ", listed_in);
  if (c.survivors.empty() && c.open_ports.empty() && !evidence.empty()) {
    out += "\nNothing leaked.\n";
  }
  if (!evidence.empty()) out += "\nEvidence\n" + evidence;
  return out;
}

}  // namespace reapcheck

namespace reapcheck {
namespace {

// What to do about one way of escaping, in a launcher's terms.
std::string_view fix_for(Escape::Kind kind) {
  switch (kind) {
    case Escape::Kind::session:
    case Escape::Kind::orphan:
      return "put the agent in a cgroup of its own and kill the cgroup (cgroup.kill), or run it "
             "as PID 1 of a PID namespace: neither setsid() nor a parent's exit leaves those";
    case Escape::Kind::group:
      return "kill the agent's session as well as its group, or better its cgroup";
    case Escape::Kind::resisted:
      return "after SIGTERM and a grace period, send SIGKILL to what is still there";
    case Escape::Kind::unfound:
      return "find the tree by what the kernel keeps for it (a cgroup, a PID namespace, pidfds "
             "taken while it runs), not by name or command line";
  }
  return {};
}

}  // namespace

std::string reproduce_summary(const std::vector<CaseResult>& results,
                              const std::vector<CatalogueEntry>& catalogue) {
  std::string out = "\nSummary of this run\n";
  std::vector<std::string> passed;
  std::set<Escape::Kind> kinds;
  std::set<int> ports;
  size_t width = 0;
  for (const CaseResult& c : results) width = std::max(width, shown_reaper(c.reaper).size());
  width = std::min<size_t>(width, 40);
  for (const CaseResult& c : results) {
    out += fmt::format("  {:<{}} {:<14} {}\n", cut(std::string(shown_reaper(c.reaper)), width),
                       width, to_string(c.verdict),
                       c.verdict == Verdict::pass ? std::string() : cut(c.reason, 80));
    if (c.verdict == Verdict::pass) passed.emplace_back(shown_reaper(c.reaper));
    const ProcessRecord* agent = agent_of(c);
    for (const ProcessRecord& p : c.survivors) {
      if (agent != nullptr) kinds.insert(observed_escape(p, *agent, reached(c, p)).kind);
    }
    for (const OpenPort& p : c.open_ports) ports.insert(p.port);
  }
  if (passed.empty()) {
    out += "\nNo reaper passed in this run.\n";
  } else {
    out += fmt::format("\nPassed in this run: {}\n", fmt::join(passed, ", "));
  }
  if (kinds.empty() && ports.empty()) return out;
  out += "\nWhat to change in your launcher\n";
  for (Escape::Kind k : kinds) out += fmt::format("  - {}\n", fix_for(k));
  if (!ports.empty()) {
    out += fmt::format(
        "  - port {} stayed open after the kill: the next start fails with EADDRINUSE until "
        "what holds it is killed\n",
        fmt::join(ports, ", "));
  }
  const auto best = std::find_if(catalogue.begin(), catalogue.end(), [&](const CatalogueEntry& e) {
    return std::find(passed.begin(), passed.end(), e.id) != passed.end();
  });
  if (best != catalogue.end()) {
    out += fmt::format("  Kill the tree the way {} does: {}\n", best->id, best->technique);
  }
  return out;
}

}  // namespace reapcheck
