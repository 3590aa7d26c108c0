#include "harness/model/expectations.h"

#include <gtest/gtest.h>

#include "harness/catalog/catalog.h"
#include "harness/model/scenario_set.h"
#include "harness/model/toml_reader.h"

namespace reapcheck {
namespace {

const std::vector<std::string> kScenarios = {"setsid-escape", "pid-reuse", "plain-child"};
const std::vector<std::string> kReapers = {"pgroup", "pidns"};

ReaperExpectations parse(const std::string& text, const std::string& file = "exp/pgroup.toml") {
  return parse_expectations(text, file, kScenarios, kReapers);
}

std::string error_of(const std::string& text, const std::string& file = "exp/pgroup.toml") {
  try {
    parse(text, file);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Expectations, OneReasonCoversEveryScenarioItNames) {
  ExpectationBook book;
  book.add(parse(R"([[known]]
verdict = "leak"
reason = "killpg misses other sessions"
scenarios = ["setsid-escape", "pid-reuse"]

[[skip]]
reason = "cannot apply"
scenarios = ["plain-child"]
)"));
  EXPECT_EQ(book.expected("setsid-escape", "pgroup").verdict, Verdict::leak);
  EXPECT_EQ(book.expected("pid-reuse", "pgroup").reason, "killpg misses other sessions");
  EXPECT_EQ(book.expected("plain-child", "pgroup").verdict, Verdict::pass);
  EXPECT_EQ(book.expected("setsid-escape", "pidns").verdict, Verdict::pass);  // no file: pass
  ASSERT_NE(book.skip_reason("plain-child", "pgroup"), nullptr);
  EXPECT_EQ(*book.skip_reason("plain-child", "pgroup"), "cannot apply");
  EXPECT_EQ(book.skip_reason("setsid-escape", "pgroup"), nullptr);
}

TEST(Expectations, AWeaknessMayListItsOtherForms) {
  const ReaperExpectations e = parse(R"([[known]]
verdict = "leak"
also = ["late"]
reason = "by timing alone"
scenarios = ["setsid-escape"]
)");
  EXPECT_EQ(e.known.at("setsid-escape").also, std::vector<Verdict>{Verdict::late});
  const std::string head =
      "[[known]]\nverdict = \"leak\"\nreason = \"r\"\nscenarios = [\"pid-reuse\"]\n";
  EXPECT_NE(error_of(head + "also = [\"pass\"]\n")
                .find("exp/pgroup.toml:5:9: 'pass' is not a weakness verdict"),
            std::string::npos)
      << error_of(head + "also = [\"pass\"]\n");
  EXPECT_NE(error_of(head + "also = [\"leak\"]\n").find("'leak' is listed twice"),
            std::string::npos);
  EXPECT_NE(error_of(head + "also = \"late\"\n").find("'also' must be a list of verdicts"),
            std::string::npos);
}

TEST(Expectations, MalformedFilesNameFileLineAndColumn) {
  EXPECT_EQ(error_of("[[known]\n").rfind("exp/pgroup.toml:1:", 0), 0u);
  std::string e = error_of(
      "[[known]]\nverdict = \"leak\"\nreason = \"r\"\nscenarios = [\"setsid-escape\", "
      "\"setsid-escap\"]\n");
  EXPECT_EQ(e.rfind("exp/pgroup.toml:4:31: unknown scenario 'setsid-escap'", 0), 0u) << e;
  EXPECT_NE(e.find("plain-child"), std::string::npos) << e;  // lists the valid ids
  EXPECT_NE(error_of("[[known]]\nverdict = \"pass\"\nreason = \"r\"\nscenarios = [\"pid-reuse\"]\n")
                .find("not a weakness verdict (one of: bystander-hit"),
            std::string::npos);
  EXPECT_NE(error_of("[[known]]\nverdict = \"leak\"\nscenarios = [\"pid-reuse\"]\n")
                .find("missing key 'reason'"),
            std::string::npos);
  EXPECT_NE(error_of("[[known]]\nverdict = \"leak\"\nreason = \"\"\nscenarios = [\"pid-reuse\"]\n")
                .find("needs its reason"),
            std::string::npos);
  EXPECT_NE(
      error_of("[[known]]\nverdict = \"leak\"\nreason = \"r\"\n").find("missing key 'scenarios'"),
      std::string::npos);
  EXPECT_NE(error_of("[[known]]\nverdict = \"leak\"\nreason = \"r\"\nscenarios = [\"pid-reuse\"]\n"
                     "[[skip]]\nreason = \"s\"\nscenarios = [\"pid-reuse\"]\n")
                .find("exp/pgroup.toml:7:14: scenario 'pid-reuse' is declared twice"),
            std::string::npos);
  EXPECT_NE(error_of("[known.x]\n").find("'known' must be an array of tables"), std::string::npos);
  EXPECT_NE(error_of("reason = \"r\"\n").find("unknown key 'reason' in an expectations file"),
            std::string::npos);
}

TEST(Expectations, TheFileIsNamedForAReaperThatExists) {
  std::string e = error_of("", "exp/pgrup.toml");
  EXPECT_EQ(e.rfind("exp/pgrup.toml:1:1: no reaper is called 'pgrup'", 0), 0u) << e;
  EXPECT_NE(e.find("pgroup, pidns"), std::string::npos) << e;
}

// A file for a reaper of the run, by its label: the `reaper` key names it whatever the file is
// called, and each scenario's declaration keeps its line, for a stale one to be deleted.
TEST(Expectations, AFileNamesItsReaperAndEachScenarioItsLine) {
  const ReaperExpectations e =
      parse_expectations(R"(reaper = "walk"
[[known]]
verdict = "leak"
reason = "killpg only"
scenarios = [
  "setsid-escape",
  "pid-reuse",
]
)",
                         "ci/gate.toml", kScenarios, {"walk"}, "this run's reapers");
  EXPECT_EQ(e.reaper, "walk");
  EXPECT_EQ(e.known.at("setsid-escape").where, "ci/gate.toml:6");
  EXPECT_EQ(e.known.at("pid-reuse").where, "ci/gate.toml:7");
  try {
    parse_expectations("reaper = \"walk\"\n", "ci/gate.toml", kScenarios, {"walk2"},
                       "this run's reapers");
    ADD_FAILURE() << "a file for no reaper of the run was taken";
  } catch (const InputError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("no reaper is called 'walk'"), std::string::npos) << what;
    EXPECT_NE(what.find("this run's reapers: walk2"), std::string::npos) << what;
  }
}

// Every built-in reaper and preset has its file, and every shipped file loads: adding a reaper
// means adding its expectations.
TEST(Expectations, EveryReaperInTheCatalogHasItsFile) {
  std::vector<std::string> reapers;
  for (const auto& r : reaper_catalog(Layout::of_running_binary())) reapers.push_back(r.id);
  const ScenarioSet set =
      load_scenario_set(std::filesystem::path(REAPCHECK_SOURCE_DIR) / "scenarios", reapers);
  for (const auto& id : reapers) {
    EXPECT_NE(set.expectations.find(id), nullptr)
        << "scenarios/expectations/" << id << ".toml is missing";
  }
}

}  // namespace
}  // namespace reapcheck
