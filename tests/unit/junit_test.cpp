#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <pugixml.hpp>

#include "harness/model/reaper_name.h"
#include "harness/model/result_json.h"
#include "reports/evidence.h"
#include "reports/junit_report.h"
#include "reports/text_matrix.h"

namespace reapcheck {
namespace {

RunResult sample() {
  RunResult run;
  CaseResult leak;
  leak.scenario = "setsid-escape";
  leak.reaper = "pgroup";
  leak.verdict = Verdict::leak;
  leak.expected = Verdict::pass;
  leak.reason = "1 process(es) of the tree outlived the reaper";
  leak.survivors = {{5, 1, 5, 5, "S", "escaped", {"perl", "tree.pl", "/tmp/w/spec.json"}}};
  leak.case_ms = 1500;
  leak.tags = {"escape", "setsid"};
  CaseResult ok;
  ok.scenario = "setsid-escape";
  ok.reaper = "proc-pidfd";
  ok.verdict = Verdict::pass;
  ok.expected = Verdict::pass;
  CaseResult skipped = ok;
  skipped.scenario = "cgroup-only";
  skipped.verdict = Verdict::skipped;
  skipped.reason = "no writable cgroup v2";
  run.cases = {leak, ok, skipped};
  return run;
}

TEST(JUnit, OneSuitePerReaperAndTheSurvivorInTheFailureMessage) {
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(junit_xml(sample()).c_str()));
  auto suites = doc.child("testsuites");
  EXPECT_EQ(std::distance(suites.children("testsuite").begin(), suites.children("testsuite").end()),
            2);
  EXPECT_STREQ(suites.attribute("name").value(), "reapcheck");
  EXPECT_EQ(suites.attribute("tests").as_int(), 3);
  EXPECT_EQ(suites.attribute("failures").as_int(), 1);
  EXPECT_EQ(suites.attribute("errors").as_int(), 0);
  EXPECT_STREQ(suites.attribute("time").value(), "1.500");  // no wall time: the cases' sum
  auto pgroup = suites.find_child_by_attribute("testsuite", "name", "pgroup");
  EXPECT_EQ(pgroup.attribute("failures").as_int(), 1);
  auto tc = pgroup.child("testcase");
  EXPECT_STREQ(tc.attribute("classname").value(), "pgroup");
  EXPECT_STREQ(tc.attribute("name").value(), "setsid-escape");
  EXPECT_STREQ(tc.attribute("time").value(), "1.500");
  EXPECT_TRUE(tc.child("properties").empty());  // neither CI schema allows them in a testcase
  EXPECT_STREQ(pgroup.child("properties")
                   .find_child_by_attribute("property", "name", "setsid-escape.tags")
                   .attribute("value")
                   .value(),
               "escape,setsid");
  const std::string message = tc.child("failure").attribute("message").value();
  EXPECT_EQ(message, "leak (expected pass): escaped (pid 5, perl tree.pl spec.json) survived");
  std::string text = tc.child("failure").text().get();
  EXPECT_NE(text.find("perl tree.pl /tmp/w/spec.json"), std::string::npos) << text;
  auto pidfd = suites.find_child_by_attribute("testsuite", "name", "proc-pidfd");
  EXPECT_EQ(pidfd.attribute("skipped").as_int(), 1);
  auto skipped = pidfd.find_child_by_attribute("testcase", "name", "cgroup-only").child("skipped");
  EXPECT_STREQ(skipped.attribute("message").value(), "no writable cgroup v2");
}

// A reaper that failed, timed out or could not be set up is a JUnit error, counted apart from
// the failures; a command's suite and classname are a plain word, the command a property; the
// run's time is its wall time.
TEST(JUnit, ErrorsApartAndCommandsUnderPlainNames) {
  RunResult run = sample();
  run.wall_s = 0.75;
  CaseResult broken = run.cases[1];
  broken.reaper = "mine=exec:./bin/my.reaper kill {pid}";
  broken.verdict = Verdict::reaper_error;
  broken.reason = "'./bin/my.reaper kill 5' exited with status 1";
  CaseResult hung = broken;
  hung.scenario = "plain-child";
  hung.reaper = "exec:sleep 60";
  hung.verdict = Verdict::reaper_timeout;
  CaseResult unbuilt = hung;
  unbuilt.scenario = "deep-chain";
  unbuilt.verdict = Verdict::setup_error;
  CaseResult known = hung;  // declared, so no deviation at all
  known.scenario = "fork-storm";
  known.expected = Verdict::reaper_timeout;
  run.cases.insert(run.cases.end(), {broken, hung, unbuilt, known});
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(junit_xml(run).c_str()));
  auto suites = doc.child("testsuites");
  EXPECT_EQ(suites.attribute("tests").as_int(), 7);
  EXPECT_EQ(suites.attribute("failures").as_int(), 1);
  EXPECT_EQ(suites.attribute("errors").as_int(), 3);
  EXPECT_STREQ(suites.attribute("time").value(), "0.750");
  auto mine = suites.find_child_by_attribute("testsuite", "name", "mine");
  EXPECT_EQ(mine.attribute("errors").as_int(), 1);
  EXPECT_EQ(mine.attribute("failures").as_int(), 0);
  EXPECT_STREQ(mine.child("properties")
                   .find_child_by_attribute("property", "name", "reaper")
                   .attribute("value")
                   .value(),
               "mine=exec:./bin/my.reaper kill {pid}");
  auto tc = mine.child("testcase");
  EXPECT_STREQ(tc.attribute("classname").value(), "mine");
  EXPECT_TRUE(tc.child("failure").empty());
  EXPECT_STREQ(tc.child("error").attribute("type").value(), "reaper-error");
  EXPECT_EQ(std::string(tc.child("error").attribute("message").value())
                .rfind("reaper-error (expected pass): ", 0),
            0u);
  const std::string sleep_name = reaper_name("exec:sleep 60");
  auto sleep = suites.find_child_by_attribute("testsuite", "name", sleep_name.c_str());
  EXPECT_EQ(sleep_name.rfind("exec-sleep-", 0), 0u);
  EXPECT_EQ(sleep.attribute("tests").as_int(), 3);
  EXPECT_EQ(sleep.attribute("errors").as_int(), 2);
  for (auto c : sleep.children("testcase")) {
    EXPECT_EQ(c.attribute("classname").value(), sleep_name);
    EXPECT_EQ(c.child("error").empty(), std::string(c.attribute("name").value()) == "fork-storm");
  }
  EXPECT_STREQ(sleep.find_child_by_attribute("testcase", "name", "deep-chain")
                   .child("error")
                   .attribute("type")
                   .value(),
               "setup-error");
}

// A reaper that leaves a thousand processes still gets a readable report: the first few, "and N
// more", lines cut; the JSON keeps every one.
TEST(Evidence, IsBoundedToAScreenfulWhileTheJsonKeepsEverything) {
  RunResult run = sample();
  CaseResult& c = run.cases[0];
  const std::string long_arg(5000, 'x');
  for (int i = 0; i < 1000; ++i) {
    c.survivors.push_back({100 + i, 1, 100, 100, "S", "child", {"perl", long_arg}});
  }
  c.reason = std::string(100000, 'r');
  size_t lines = 0;
  for (const auto& s : evidence_sections(c)) {
    for (const auto& line : s.lines) {
      EXPECT_LE(line.size(), 3 * kEvidenceLimits.width) << line.substr(0, 200);
      ++lines;
    }
  }
  EXPECT_LE(lines, kEvidenceLimits.processes + 2);
  const std::string text = evidence_text(c);
  EXPECT_NE(text.find("and 993 more (results.json lists all 1001)"), std::string::npos) << text;
  EXPECT_LE(short_reason(c).size(), 3 * kEvidenceLimits.reason);
  const std::string summary = evidence_summary(c);
  EXPECT_NE(summary.find("escaped (pid 5, perl tree.pl spec.json), child (pid 100, perl "),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("and 999 more survived"), std::string::npos) << summary;
  nlohmann::json j = run;
  EXPECT_EQ(j["cases"][0]["survivors"].size(), 1001u);
  EXPECT_EQ(j["cases"][0]["reason"].get<std::string>().size(), 100000u);
}

TEST(Evidence, CutKeepsWholeCharacters) {
  EXPECT_EQ(cut("abcdef", 10), "abcdef");
  EXPECT_EQ(cut("abcdef", 4), "abc…");
  EXPECT_EQ(cut("ab×de", 4), "ab×…");
  EXPECT_EQ(cut("ab×d", 4), "ab×d");
}

// A deep install or worktree path does not push the script's name out of a survivor's row.
TEST(Evidence, ALongArgvKeepsTheScriptsName) {
  const std::vector<std::string> argv = {
      "/usr/bin/perl", "/opt/a/deep/install/prefix/share/reapcheck/fixtures/perl/tree.pl",
      "/tmp/reapcheck-AbCdEf/worktree/.reapcheck/spec.json"};
  EXPECT_EQ(fitted_argv(argv, 200), fmt::format("{}", fmt::join(argv, " ")));  // it fits
  EXPECT_EQ(fitted_argv(argv, 60), "/usr/bin/perl …/perl/tree.pl …/.reapcheck/spec.json");
  EXPECT_EQ(fitted_argv({"sleep", "infinity"}, 5), "slee…");
}

// The headline names who was hit, with what, by whom, as the signal ledger recorded it.
TEST(Evidence, SummaryNamesTheBystanderHitAndItsSender) {
  CaseResult c;
  c.verdict = Verdict::bystander_hit;
  SignalRecord r;
  r.sender = {Party::Kind::reaper, 9, "sh", true};
  r.sender_argv = {"sh", "-c", "/usr/bin/my-reaper kill 7"};
  r.call = "kill";
  r.target = "pid 7";
  r.signal = "SIGKILL";
  r.reached = {{Party::Kind::bystander, 7, "sibling-agent", true}};
  c.signals = {r};
  EXPECT_EQ(evidence_summary(c), "sibling-agent got SIGKILL from pid 9 (sh -c my-reaper kill 7)");
}

TEST(Evidence, TheLessonSaysWhyAndWhatToTry) {
  CaseResult c = sample().cases[0];
  c.expected_reason = "killpg reaches only the agent's group";
  ScenarioNotes notes{
      "A child that calls setsid()", {}, {"pgroup", "cgroup", "pidns"}, "cgroup.kill"};
  const auto lines = lesson_lines(c, &notes);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "scenario: A child that calls setsid()");
  EXPECT_EQ(lines[1], "why pgroup fails it: killpg reaches only the agent's group");
  EXPECT_EQ(lines[2], "reapers that pass it: cgroup, pidns — try --reaper cgroup");
}

TEST(JsonReport, RoundTripsTheContractFields) {
  nlohmann::json j = sample();
  const auto& c = j["cases"][0];
  for (const char* key : {"scenario", "reaper", "verdict", "expected", "reason", "survivors",
                          "bystanders_hit", "timings_ms"}) {
    EXPECT_TRUE(c.contains(key)) << key;
  }
  for (const char* key : {"pid", "ppid", "pgid", "sid", "state", "role", "argv"}) {
    EXPECT_TRUE(c["survivors"][0].contains(key)) << key;
  }
  EXPECT_TRUE(c["timings_ms"].contains("kill"));
  EXPECT_TRUE(c["timings_ms"].contains("all_dead"));
  RunResult back = j.get<RunResult>();
  ASSERT_EQ(back.cases.size(), 3u);
  EXPECT_EQ(back.cases[0].survivors[0].argv[2], "/tmp/w/spec.json");
  EXPECT_EQ(back.cases[2].verdict, Verdict::skipped);
}

// A run that did not finish says so: an error testcase for the run as a whole counting the
// cases that never ran, "incomplete" in results.json (kept through a read), a line in the matrix.
TEST(JUnit, AnIncompleteRunIsAnErrorOfItsOwn) {
  RunResult run = sample();
  EXPECT_FALSE(nlohmann::json(run)["incomplete"].get<bool>());
  EXPECT_EQ(junit_xml(run).find("the whole run"), std::string::npos);
  run.never_run = 5;
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(junit_xml(run).c_str()));
  const auto suites = doc.child("testsuites");
  EXPECT_EQ(suites.attribute("tests").as_int(), 4);
  EXPECT_EQ(suites.attribute("errors").as_int(), 1);
  const auto error = suites.find_child_by_attribute("testsuite", "name", "reapcheck")
                         .find_child_by_attribute("testcase", "name", "the whole run")
                         .child("error");
  ASSERT_TRUE(error);
  EXPECT_STREQ(error.attribute("type").value(), "incomplete");
  EXPECT_NE(std::string(error.attribute("message").value()).find("5 of its 8 case(s) never ran"),
            std::string::npos)
      << error.attribute("message").value();
  const nlohmann::json j = run;
  EXPECT_TRUE(j["incomplete"].get<bool>());
  EXPECT_EQ(j.get<RunResult>().never_run, 5);
  EXPECT_NE(text_report(run, false, TextDetail::quiet).find("INCOMPLETE: the run is incomplete"),
            std::string::npos);
}

TEST(TextMatrix, MarksSurprisesAndListsTheirEvidence) {
  RunResult run = sample();
  std::string m = text_matrix(run, false);
  EXPECT_NE(m.find("LEAK, expected pass"), std::string::npos) << m;
  std::string d = text_report(run, false, TextDetail::quiet);
  EXPECT_NE(d.find("setsid-escape × pgroup"), std::string::npos) << d;
  EXPECT_NE(d.find("escaped"), std::string::npos) << d;
}

}  // namespace
}  // namespace reapcheck
