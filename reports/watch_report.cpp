#include "reports/watch_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "harness/model/cut.h"
#include "harness/model/text.h"
#include "harness/model/verdict.h"
#include "reports/evidence.h"

namespace reapcheck {
namespace {

// Per test, as much of the evidence as a terminal line holds; results.json has all of it.
constexpr size_t kReasonWidth = 600;

std::string shown_test(const CaseResult& c) {
  return c.scenario == "command" ? "the command, outside any test" : "test " + c.scenario;
}

// A command line on one line of the terminal: `perl -e '...'` spans several.
std::string one_line(const ProcessRecord& p) {
  std::string s = fitted_argv(p.argv, 120);
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

void append_leaks(std::string& out, const CaseResult& c) {
  for (const ProcessRecord& p : c.survivors) {
    out += fmt::format("    left running: {} (pid {}): {}\n", p.role, p.pid, one_line(p));
    if (!p.escape.empty()) out += fmt::format("      how it got out: {}\n", p.escape);
    if (!p.started_by.empty()) {
      out += fmt::format("      started by: {}\n", fmt::join(p.started_by, " ← "));
    }
  }
  for (const OpenPort& port : c.open_ports) {
    out += fmt::format("      still listening on port {} (pid {})\n", port.port, port.pid);
  }
}

void append_signals(std::string& out, const CaseResult& c) {
  for (const SignalRecord& r : c.signals) {
    if (r.hit_outside() || r.stray()) out += fmt::format("    {}\n", r.summary(120));
  }
  for (const BystanderHit& h : c.bystanders_hit) {
    out += fmt::format("    {} (pid {}) got {} {}\n", h.role, h.pid, h.signal, h.sender());
  }
}

}  // namespace

std::string watch_report(const std::vector<CaseResult>& parts, const std::string& command,
                         const std::string& status) {
  std::string out =
      fmt::format("\nreapcheck watch: `{}` {}.\n", cut(printable(command), 200), status);
  std::vector<std::string> clean;
  int found = 0;
  for (const CaseResult& c : parts) {
    if (c.verdict == Verdict::pass) {
      if (c.scenario != "command") clean.push_back(c.scenario);
      continue;
    }
    ++found;
    out += fmt::format("  {}: {}{}\n", shown_test(c), to_string(c.verdict),
                       c.as_expected() ? " (declared)" : "");
    append_leaks(out, c);
    append_signals(out, c);
    if (c.survivors.empty() && c.signals.empty() && c.bystanders_hit.empty()) {
      out += fmt::format("    {}\n", fitted_reason(c.reason, kReasonWidth));
    }
  }
  if (!clean.empty()) {
    out += fmt::format("  clean: {}\n", fmt::join(clean, ", "));
  }
  const long tests = std::count_if(parts.begin(), parts.end(),
                                   [](const CaseResult& c) { return c.scenario != "command"; });
  out += fmt::format("{} test{} seen starting a process, {} with findings{}.\n", tests,
                     tests == 1 ? "" : "s", found,
                     found == 0 ? ": nothing left running, nobody else signalled" : "");
  return out;
}

}  // namespace reapcheck
