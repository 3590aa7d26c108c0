#include <gtest/gtest.h>

#include <pugixml.hpp>

#include "harness/model/result_json.h"
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

TEST(JUnit, OneSuitePerReaperAndSurvivorsInTheFailureText) {
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(junit_xml(sample()).c_str()));
  auto suites = doc.child("testsuites");
  EXPECT_EQ(std::distance(suites.children("testsuite").begin(), suites.children("testsuite").end()),
            2);
  auto pgroup = suites.find_child_by_attribute("testsuite", "name", "pgroup");
  EXPECT_EQ(pgroup.attribute("failures").as_int(), 1);
  auto tc = pgroup.child("testcase");
  EXPECT_STREQ(tc.attribute("classname").value(), "pgroup");
  EXPECT_STREQ(tc.attribute("name").value(), "setsid-escape");
  EXPECT_STREQ(tc.attribute("time").value(), "1.500");
  EXPECT_STREQ(tc.child("properties")
                   .find_child_by_attribute("property", "name", "tags")
                   .attribute("value")
                   .value(),
               "escape,setsid");
  std::string text = tc.child("failure").text().get();
  EXPECT_NE(text.find("escaped"), std::string::npos) << text;
  EXPECT_NE(text.find("perl tree.pl /tmp/w/spec.json"), std::string::npos) << text;
  auto pidfd = suites.find_child_by_attribute("testsuite", "name", "proc-pidfd");
  EXPECT_EQ(pidfd.attribute("skipped").as_int(), 1);
  auto skipped = pidfd.find_child_by_attribute("testcase", "name", "cgroup-only").child("skipped");
  EXPECT_STREQ(skipped.attribute("message").value(), "no writable cgroup v2");
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

TEST(TextMatrix, MarksSurprisesAndListsTheirEvidence) {
  RunResult run = sample();
  std::string m = text_matrix(run, false);
  EXPECT_NE(m.find("LEAK, expected pass"), std::string::npos) << m;
  std::string d = text_deviations(run);
  EXPECT_NE(d.find("setsid-escape × pgroup"), std::string::npos) << d;
  EXPECT_NE(d.find("escaped"), std::string::npos) << d;
}

}  // namespace
}  // namespace reapcheck
