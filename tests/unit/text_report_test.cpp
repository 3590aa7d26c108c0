// The terminal report at its three levels (-q, default, --explain), the hint that names the
// reapers to try, and the sender of a signal named by what it runs.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "harness/model/cut.h"
#include "reports/evidence.h"
#include "reports/text_matrix.h"

namespace reapcheck {
namespace {

CaseResult cell(const std::string& scenario, const std::string& reaper, Verdict verdict,
                Verdict expected) {
  CaseResult c;
  c.scenario = scenario;
  c.reaper = reaper;
  c.verdict = verdict;
  c.expected = expected;
  c.reason = "1 process(es) of the tree outlived the reaper";
  if (verdict == Verdict::leak) {
    c.survivors = {{6, 1, 6, 6, "S", "escaped", {"/usr/bin/perl", "/x/perl/tree.pl", "spec"}}};
  }
  if (expected != Verdict::pass) c.expected_reason = "killpg reaches only the agent's group";
  return c;
}

// pgroup: one surprise, two declared weaknesses of two kinds, one skip; cgroup passes all.
RunResult mixed() {
  RunResult run;
  run.cases = {cell("a-scenario", "pgroup", Verdict::leak, Verdict::pass),
               cell("b-scenario", "pgroup", Verdict::leak, Verdict::leak),
               cell("c-scenario", "pgroup", Verdict::stray_signal, Verdict::stray_signal),
               cell("d-scenario", "pgroup", Verdict::skipped, Verdict::pass)};
  run.cases.back().reason = "the race window did not open";
  for (const auto& id : {"a-scenario", "b-scenario", "c-scenario", "d-scenario"}) {
    run.cases.push_back(cell(id, "cgroup", Verdict::pass, Verdict::pass));
  }
  return run;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(TextReport, ByDefaultTheMatrixTheDeviationsAndOneLinePerReaper) {
  const std::string out = text_report(mixed(), false, TextDetail::normal);
  EXPECT_TRUE(has(out, "LEAK, expected pass")) << out;  // the matrix
  EXPECT_TRUE(has(out, "8 cells: 7 as expected, 1 unexpected")) << out;
  EXPECT_TRUE(has(out, "Deviations:\na-scenario × pgroup: leak (expected pass)")) << out;
  EXPECT_TRUE(has(out, "6      pgid 6      sid 6      S escaped")) << out;  // its evidence
  EXPECT_TRUE(has(out,
                  "\npgroup: 2 known weaknesses (leak ×1, stray-signal ×1), 1 skipped — "
                  "--explain to list them\n"))
      << out;
  EXPECT_FALSE(has(out, "cgroup: ")) << out;  // nothing declared, nothing said
  EXPECT_FALSE(has(out, "b-scenario × pgroup")) << out;
  // Why a cell was skipped, once per reason with the cells it took.
  EXPECT_TRUE(has(out, "\nSkipped:\n  the race window did not open: d-scenario × pgroup\n")) << out;
}

TEST(TextReport, QuietIsTheDeviationsAndTheSummaryOnly) {
  const std::string out = text_report(mixed(), false, TextDetail::quiet);
  EXPECT_EQ(out.rfind("Deviations:\na-scenario × pgroup", 0), 0u) << out;
  EXPECT_TRUE(has(out, "\n8 cells: 7 as expected")) << out;
  EXPECT_FALSE(has(out, "scenario  ")) << out;  // no matrix header
  EXPECT_FALSE(has(out, "known weakness")) << out;
  RunResult passing;
  passing.cases = {cell("a", "r", Verdict::pass, Verdict::pass)};
  const std::string clean = text_report(passing, false, TextDetail::quiet);
  EXPECT_EQ(clean.rfind("1 cells: 1 as expected", 0), 0u) << clean;
}

TEST(TextReport, ExplainListsEveryDeclaredWeaknessAndSkip) {
  const std::string out = text_report(mixed(), false, TextDetail::explain);
  EXPECT_TRUE(has(out, "Known weaknesses, as declared:\n  b-scenario × pgroup: leak — ")) << out;
  EXPECT_TRUE(has(out, "why pgroup fails it: killpg")) << out;
  EXPECT_TRUE(has(out, "Skipped:\n  d-scenario × pgroup: the race window did not open")) << out;
  EXPECT_FALSE(has(out, "--explain to list them")) << out;
}

// A reaper that fails every scenario of a catalogue the size of the built-in one (38) still
// prints about a page: the first deviation whole, the others one line each, no name cut into;
// --explain still tells each one whole.
TEST(TextReport, ADoNothingReaperOverManyScenariosFitsUnder8KB) {
  RunResult run;
  for (int i = 0; i < 40; ++i) {
    CaseResult c =
        cell(fmt::format("scenario-{:02}", i), "exec:true", Verdict::leak, Verdict::pass);
    for (int k = 0; k < 20; ++k) {
      c.survivors.push_back(
          {100 + k, 6, 6, 6, "S", "child", {"/usr/bin/perl", std::string(300, 'x')}});
    }
    run.scenarios[c.scenario] = {"A tree that escapes in its own way", {}, {"cgroup", "pidns"}, ""};
    run.cases.push_back(c);
  }
  const std::string out = text_report(run, false, TextDetail::normal);
  EXPECT_LT(out.size(), 8192u) << out;
  EXPECT_TRUE(has(out, "more, one line each (--explain shows each in full):")) << out;
  EXPECT_TRUE(has(out,
                  "  scenario-39 × exec:true: LEAK, expected pass — survived: escaped (pid 6), "
                  "child (pid 100)"))
      << out;
  EXPECT_EQ(out.find("…", out.find("one line each")), std::string::npos) << out;
  const std::string all = text_report(run, false, TextDetail::explain);
  size_t whole = 0;
  for (size_t at = all.find(": leak (expected pass)\n"); at != std::string::npos;
       at = all.find(": leak (expected pass)\n", at + 1)) {
    ++whole;
  }
  EXPECT_EQ(whole, 40u) << all;
}

TEST(TextReport, ColourComesFromFmtAndOnlyWhenAsked) {
  const RunResult run = mixed();
  EXPECT_FALSE(has(text_report(run, false, TextDetail::normal), "\x1b["));
  const std::string coloured = text_matrix(run, true);
  EXPECT_TRUE(has(coloured, "\x1b[1m\x1b[38;5;1m") || has(coloured, "\x1b[1m\x1b[31m")) << coloured;
  EXPECT_TRUE(has(coloured, "\x1b[32mpass")) << coloured;
}

// A declared weakness that passed names the line declaring it, to delete; a labelled reaper is
// its label in the report, its command said once, in the evidence.
TEST(TextReport, AStaleDeclarationNamesItsLineAndALabelIsTheReapersName) {
  RunResult run;
  run.cases = {cell("a-scenario", "walk=exec:./walk {pid}", Verdict::pass, Verdict::leak),
               cell("b-scenario", "walk=exec:./walk {pid}", Verdict::leak, Verdict::pass)};
  run.cases.front().expected_where = "ci/walk.toml:7";
  const std::string text = text_report(run, false, TextDetail::explain);
  EXPECT_TRUE(has(text,
                  "stale declaration: ci/walk.toml:7 declares leak here, and it passed: "
                  "delete 'a-scenario' from that line"))
      << text;
  EXPECT_FALSE(has(text, "why walk fails it")) << text;
  EXPECT_TRUE(has(text, "a-scenario × walk: pass (expected leak)")) << text;
  EXPECT_TRUE(has(text, "scenario    walk")) << text;
  EXPECT_TRUE(has(text, "reaper walk:\n    exec:./walk {pid}")) << text;
  EXPECT_GT(text.find("exec:./walk"), text.find("Deviations:")) << text;  // not in the matrix
}

TEST(Cut, FirstItemsDropsWholeItemsNeverCutsOne) {
  const std::vector<std::string> ids = {"subreaper", "cgroup", "bwrap", "pidns", "proc-pidfd"};
  EXPECT_EQ(first_items(ids, 200), "subreaper, cgroup, bwrap, pidns, proc-pidfd");
  EXPECT_EQ(first_items(ids, 40), "subreaper, cgroup, bwrap and 2 more");
  EXPECT_EQ(first_items(ids, 5), "subreaper and 4 more");  // the first is whole, even too wide
  EXPECT_EQ(first_items(ids, 200, 2), "subreaper, cgroup and 3 more");
  EXPECT_EQ(first_items({}, 10), "");
  EXPECT_EQ(text_width("a×b…"), 4u);
}

// With the presets, a scenario may be passed by twenty reapers: the list drops whole names, and
// the flag to try is always there.
TEST(Evidence, TheHintDropsWholeReapersAndKeepsTheFlag) {
  CaseResult c = cell("setsid-escape", "pgroup", Verdict::leak, Verdict::leak);
  ScenarioNotes notes{"d", {}, {}, ""};
  for (int i = 0; i < 30; ++i) notes.passing.push_back(fmt::format("preset-number-{}", i));
  const auto lines = lesson_lines(c, &notes);
  const std::string& hint = lines.back();
  EXPECT_EQ(hint.rfind("reapers that pass it: preset-number-0, preset-number-1, ", 0), 0u) << hint;
  EXPECT_TRUE(hint.find(" more — try --reaper preset-number-0") != std::string::npos) << hint;
  EXPECT_EQ(hint.find("…"), std::string::npos) << hint;
  EXPECT_LE(text_width(hint), kEvidenceLimits.width + 40) << hint;
}

// A built-in reaper's signals come from the reaper host, a copy of reapcheck: named by the
// reaper, not by reapcheck's command line; any other sender by what it runs.
TEST(Evidence, TheSenderIsNamedByWhatItRuns) {
  CaseResult c;
  c.reaper = "pgroup";
  c.verdict = Verdict::bystander_hit;
  SignalRecord r;
  r.sender = {Party::Kind::reaper, 4, std::string(kReaperHostRole), true};
  r.sender_argv = {"/work/build/bin/reapcheck", "run", "--scenario", "sibling-agent"};
  r.call = "kill";
  r.target = "group 5";
  r.signal = "SIGKILL";
  r.reached = {{Party::Kind::bystander, 7, "sibling-agent", true}};
  c.signals = {r};
  EXPECT_EQ(evidence_summary(c), "sibling-agent got SIGKILL from pgroup (pid 4)");
  const std::string text = evidence_text(c);
  EXPECT_TRUE(has(text, "ms reaper pgroup (pid 4) kill(group 5, SIGKILL)")) << text;
  EXPECT_FALSE(has(text, "reapcheck")) << text;
  EXPECT_EQ(r.sender_text(), "reaper host (pid 4)");  // the judge's reason: no reaper id there
  r.sender = {Party::Kind::reaper, 9, "sh", true};
  r.sender_argv = {"sh", "-c", "kill -9 -5"};
  EXPECT_EQ(r.sender_text("exec:kill -9 -5"), "reaper sh (pid 9) [sh -c kill -9 -5]");
}

}  // namespace
}  // namespace reapcheck
