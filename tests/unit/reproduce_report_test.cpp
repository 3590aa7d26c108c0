// What `reproduce` and the other reports say of a case that ends with the agent's output, of a
// supervisor SIGKILLed at the end of the grace period, and of where a list cut short is whole.
#include "reports/reproduce_report.h"

#include <gtest/gtest.h>

#include <string>

#include "harness/engine/stages/kill.h"
#include "harness/model/cut.h"
#include "harness/model/judge.h"
#include "harness/model/result_json.h"
#include "reports/evidence.h"

namespace reapcheck {
namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

bool ends_with(const std::string& text, const std::string& end) {
  return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

// Flask's start-up, as its log ends when it listens on another port than the one awaited.
const std::string kFlaskOutput =
    " * Serving Flask app 'app'\n"
    " * Debug mode: off\n"
    "WARNING: This is a development server. Do not use it in a production deployment. Use a "
    "production WSGI server instead.\n"
    " * Running on http://127.0.0.1:5000\n"
    "Press CTRL+C to quit";

CaseResult flask_never_ready() {
  CaseResult c;
  c.scenario = "your-command";
  c.reaper = "pgroup";
  c.verdict = Verdict::setup_error;
  c.reason =
      "the command was not ready: still waiting for port 5001 to be listened on after 10000 ms; "
      "its processes then: python3 app.py (pid 4, S), python3 -c from multiprocessing (pid 7, S) "
      "(it ran /usr/bin/python3)" +
      std::string(kOutputEndMark) + kFlaskOutput;
  return c;
}

TEST(Cut, FromTheFrontKeepsTheEndAndWholeCharacters) {
  EXPECT_EQ(cut_front("short", 10), "short");
  EXPECT_EQ(cut_front("0123456789", 5), "…6789");
  EXPECT_EQ(cut_front("ééééé", 3), "…éé");
  EXPECT_EQ(cut_front("abc", 0), "");
}

TEST(Cut, KeepingTheEndCutsWhatCameBeforeTheMark) {
  const std::string text = std::string(100, 'h') + " | " + std::string(100, 't') + "END";
  const std::string fitted = cut_keeping_end(text, " | ", 60);
  EXPECT_TRUE(ends_with(fitted, "tttEND")) << fitted;
  EXPECT_TRUE(has(fitted, "hhh… | …ttt")) << fitted;
  EXPECT_EQ(text_width(fitted), 60U) << fitted;
  // A short head is kept whole, the tail gets the rest.
  const std::string short_head = cut_keeping_end("why | " + std::string(100, 't'), " | ", 40);
  EXPECT_EQ(short_head.rfind("why | …", 0), 0U) << short_head;
  EXPECT_EQ(text_width(short_head), 40U);
  // No mark: cut at the end, as cut() does.
  EXPECT_EQ(cut_keeping_end(std::string(50, 'x'), " | ", 10), cut(std::string(50, 'x'), 10));
}

TEST(SetupError, EveryReportKeepsTheEndOfTheCommandsOutput) {
  const CaseResult c = flask_never_ready();
  // The headline of JUnit and `reproduce`, and the reason of the matrix and the HTML: both end
  // where the command's output ended.
  for (const std::string& shown : {evidence_summary(c), short_reason(c)}) {
    EXPECT_TRUE(ends_with(shown, "Press CTRL+C to quit")) << shown;
    EXPECT_TRUE(has(shown, " * Running on http://127.0.0.1:5000")) << shown;
    EXPECT_TRUE(has(shown, "the command was not ready")) << shown;
  }
  EXPECT_LE(text_width(short_reason(c)), kEvidenceLimits.reason);
  // A log read from its middle (read_tail's "…") is cut once, not marked twice.
  CaseResult long_log = c;
  long_log.reason =
      "never ready" + std::string(kFixtureLogMark) + "…" + std::string(500, 'x') + "\nlast line";
  EXPECT_TRUE(ends_with(short_reason(long_log), "xxx\nlast line"));
  EXPECT_FALSE(has(short_reason(long_log), "……"));
}

TEST(SetupError, ReproduceShowsTheOutputsLastLinesUnderTheHeadline) {
  const std::string report = reproduce_report(flask_never_ready(), nullptr);
  EXPECT_TRUE(has(report,
                  "your-command × pgroup: setup-error — the command was not ready: still "
                  "waiting for port 5001"))
      << report;
  EXPECT_TRUE(has(report,
                  "\nThe end of its output\n"
                  "   * Serving Flask app 'app'\n"
                  "   * Debug mode: off\n"))
      << report;
  EXPECT_TRUE(ends_with(report,
                        "   * Running on http://127.0.0.1:5000\n"
                        "  Press CTRL+C to quit\n"))
      << report;
  // A long output: its last 20 lines, the earlier ones said to be left out.
  CaseResult chatty = flask_never_ready();
  chatty.reason = "the command was not ready" + std::string(kOutputEndMark);
  for (int i = 1; i <= 30; ++i) chatty.reason += "line " + std::to_string(i) + "\n";
  chatty.reason += "the last line";
  const std::string shown = reproduce_report(chatty, nullptr);
  EXPECT_TRUE(has(shown, "The end of its output\n  …\n  line 12\n")) << shown;
  EXPECT_FALSE(has(shown, "line 11\n")) << shown;
  EXPECT_TRUE(ends_with(shown, "  line 30\n  the last line\n")) << shown;
}

CaseResult many_survivors() {
  CaseResult c;
  c.scenario = "wide-tree";
  c.reaper = "pgroup";
  c.verdict = Verdict::leak;
  c.reason = "12 process(es) of the tree outlived the reaper";
  for (pid_t pid = 10; pid < 22; ++pid) {
    c.survivors.push_back({pid, 1, pid, pid, "S", "worker", {"sleep", "60"}});
  }
  return c;
}

TEST(Reproduce, SaysWhereTheWholeListIsOnlyWhenItWroteIt) {
  // Without --out no results.json is written: the report says how to have one.
  const std::string unwritten = reproduce_report(many_survivors(), nullptr);
  EXPECT_FALSE(has(unwritten, "results.json lists")) << unwritten;
  EXPECT_FALSE(has(unwritten, "the forest below")) << unwritten;
  EXPECT_TRUE(has(unwritten,
                  "… and 4 more, 12 in all (--out DIR writes every one to "
                  "results.json)"))
      << unwritten;
  // With --out DIR, where it is.
  const std::string written = reproduce_report(many_survivors(), nullptr, "out/results.json");
  EXPECT_TRUE(has(written, "… and 4 more (out/results.json lists all 12)")) << written;
  EXPECT_FALSE(has(written, "--out DIR writes")) << written;
}

Observations supervised_leak(int killed_after_ms) {
  Observations seen;
  seen.members = {{5, 4, 5, 5, "S", "agent", {"sleep", "60"}}};
  seen.survivors = seen.members;
  seen.settle_ms = 1000;
  seen.watched_ms = 40;
  seen.reaper_steps = {"SIGTERM to the supervisor 4", std::string(kSupervisorKilledStep),
                       "the supervisor exited after its SIGKILL"};
  seen.reaper_outcome.supervisor_killed_after_ms = killed_after_ms;
  return seen;
}

TEST(Supervise, ASupervisorKilledAtTheEndOfTheGraceIsSaidFirst) {
  const std::string said =
      "the supervisor was SIGKILLed at the end of the 300 ms grace period (--grace)";
  const Judgement j = judge(supervised_leak(300));
  EXPECT_EQ(j.verdict, Verdict::leak);
  EXPECT_EQ(j.reason.rfind(said + "; 1 process(es) of the tree outlived the reaper", 0), 0U)
      << j.reason;
  CaseResult c;
  static_cast<CaseObservation&>(c) = CaseObservation{supervised_leak(300), {}};
  c.scenario = "sigterm-ignorer-in-group";
  c.reaper = "supervise:tini -s --";
  c.verdict = j.verdict;
  c.reason = j.reason;
  EXPECT_TRUE(has(evidence_summary(c), said)) << evidence_summary(c);
  EXPECT_TRUE(has(short_reason(c), said)) << short_reason(c);
  // Without the SIGKILL, nothing of the kind is said.
  const Judgement plain = judge(supervised_leak(-1));
  EXPECT_FALSE(has(plain.reason, "SIGKILLed")) << plain.reason;
  // A case that passed does not blame it.
  Observations passed = supervised_leak(300);
  passed.survivors.clear();
  EXPECT_EQ(judge(passed).verdict, Verdict::pass);
  EXPECT_FALSE(has(judge(passed).reason, "SIGKILLed"));
}

TEST(Supervise, TheHostsStepIsTheCasesGraceAndCrossesAsJson) {
  Orchestrator::Reply reply;
  reply.status = Orchestrator::Reply::Status::ok;
  reply.steps = {"SIGTERM to the supervisor 4", "the supervisor exited"};
  EXPECT_EQ(outcome_of(reply, std::chrono::milliseconds(300)).supervisor_killed_after_ms, -1);
  reply.steps = {"SIGTERM to the supervisor 4", std::string(kSupervisorKilledStep),
                 "the supervisor exited after its SIGKILL"};
  const ReaperOutcome outcome = outcome_of(reply, std::chrono::milliseconds(750));
  EXPECT_EQ(outcome.status, ReaperOutcome::Status::done);
  EXPECT_EQ(outcome.supervisor_killed_after_ms, 750);
  CaseObservation sent;
  sent.reaper_outcome = outcome;
  const nlohmann::json j = sent;
  EXPECT_EQ(j.at("reaper_outcome").at("supervisor_killed_after_ms"), 750);
  EXPECT_EQ(j.get<CaseObservation>().reaper_outcome.supervisor_killed_after_ms, 750);
}

}  // namespace
}  // namespace reapcheck
