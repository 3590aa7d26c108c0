// What run's --scenario, --tag and --reaper select: ids, globs over ids, tags; and the cells
// --rerun-failed takes from an earlier run.
#include "harness/cli/selection.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/cli/last_run.h"
#include "harness/cli/usage_error.h"
#include "harness/model/scenario.h"

namespace reapcheck {
namespace {

Scenario scenario(const std::string& id, const std::string& tags) {
  return parse_scenario("description = \"d\"\ntags = [" + tags + "]\n[tree]\nrole = \"agent\"\n",
                        "scenarios/" + id + ".toml");
}

// Sorted by id, as load_scenario_set() sorts them.
ScenarioSet four() {
  ScenarioSet set;
  set.dir = "scenarios";
  set.scenarios = {scenario("pgid-reuse", "\"race\", \"perl\""),
                   scenario("pid-reuse", "\"race\", \"perl\""),
                   scenario("setpgid-escape", "\"escape\", \"perl\""),
                   scenario("setsid-escape", "\"escape\", \"setsid\", \"perl\"")};
  return set;
}

std::vector<std::string> ids(const std::vector<Scenario>& scenarios) {
  std::vector<std::string> out;
  out.reserve(scenarios.size());
  for (const auto& s : scenarios) out.push_back(s.id);
  return out;
}

using Ids = std::vector<std::string>;

// The UsageError's message that `pick` throws, or "" when it throws none.
template <typename Pick>
std::string usage_error(Pick pick) {
  try {
    pick();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(Selection, TellsGlobsFromIds) {
  EXPECT_TRUE(is_glob("setsid-*"));
  EXPECT_TRUE(is_glob("p?d-reuse"));
  EXPECT_TRUE(is_glob("[ps]id-reuse"));
  EXPECT_FALSE(is_glob("setsid-escape"));
  EXPECT_TRUE(names("set*-escape", "setsid-escape"));
  EXPECT_TRUE(names("[ps]id-reuse", "pid-reuse"));
  EXPECT_FALSE(names("[ps]id-reuse", "pgid-reuse"));
  EXPECT_FALSE(names("setsid", "setsid-escape"));  // an id names itself only
}

TEST(Selection, NothingNamedIsEveryScenario) {
  EXPECT_EQ(ids(pick_scenarios(four(), {}, {})),
            (Ids{"pgid-reuse", "pid-reuse", "setpgid-escape", "setsid-escape"}));
}

TEST(Selection, GlobsInTheOrderGivenEachScenarioOnce) {
  // The patterns' order; a glob's matches in the set's order; setsid-escape named twice, once.
  EXPECT_EQ(ids(pick_scenarios(four(), {"setsid-escape", "*-escape", "p?d-reuse"}, {})),
            (Ids{"setsid-escape", "setpgid-escape", "pid-reuse"}));
  EXPECT_EQ(ids(pick_scenarios(four(), {"[ps]*"}, {})),
            (Ids{"pgid-reuse", "pid-reuse", "setpgid-escape", "setsid-escape"}));
}

TEST(Selection, AGlobThatMatchesNothingIsAUsageError) {
  const std::string error = usage_error([] { pick_scenarios(four(), {"setsid-escap?x"}, {}); });
  EXPECT_NE(error.find("--scenario 'setsid-escap?x' matches no scenario"), std::string::npos)
      << error;
  EXPECT_NE(error.find("did you mean 'setsid-escape'"), std::string::npos) << error;
  EXPECT_NE(error.find("scenarios in scenarios: pgid-reuse, pid-reuse"), std::string::npos)
      << error;
  // A plain id keeps its message.
  EXPECT_NE(usage_error([] {
              pick_scenarios(four(), {"pid-reuze"}, {});
            }).find("unknown scenario 'pid-reuze' (did you mean 'pid-reuse'?)"),
            std::string::npos);
}

TEST(Selection, TagsSelectTheScenariosCarryingAny) {
  EXPECT_EQ(ids(pick_scenarios(four(), {}, {"race"})), (Ids{"pgid-reuse", "pid-reuse"}));
  EXPECT_EQ(ids(pick_scenarios(four(), {}, {"setsid", "race"})),
            (Ids{"pgid-reuse", "pid-reuse", "setsid-escape"}));
}

TEST(Selection, TagsWithScenariosIntersect) {
  EXPECT_EQ(ids(pick_scenarios(four(), {"set*", "pid-reuse"}, {"setsid", "race"})),
            (Ids{"setsid-escape", "pid-reuse"}));
  const std::string none = usage_error([] { pick_scenarios(four(), {"set*"}, {"race"}); });
  EXPECT_NE(none.find("no scenario that --scenario set* names is tagged race"), std::string::npos)
      << none;
}

TEST(Selection, AnUnknownTagIsAUsageErrorListingTheKnownOnes) {
  EXPECT_EQ(known_tags(four()), (Ids{"escape", "perl", "race", "setsid"}));
  const std::string error = usage_error([] { pick_scenarios(four(), {}, {"rase"}); });
  EXPECT_NE(error.find("unknown tag 'rase' (did you mean 'race'?)"), std::string::npos) << error;
  EXPECT_NE(error.find(": escape, perl, race, setsid)"), std::string::npos) << error;
}

TEST(Selection, ReaperGlobsExpandOverTheCatalogue) {
  const Ids catalogue = {"pgroup", "proc-walk", "proc-pidfd", "cgroup", "tini"};
  EXPECT_EQ(expand_reaper_globs({"proc-*", "cgroup", "p*"}, catalogue),
            (Ids{"proc-walk", "proc-pidfd", "cgroup", "pgroup"}));
  // A command, labelled or not, and @FILE are never globs; nor checked here.
  EXPECT_EQ(
      expand_reaper_globs({"exec:kill -9 -{pgid} *", "mine=supervise:run ?", "@r*.txt"}, catalogue),
      (Ids{"exec:kill -9 -{pgid} *", "mine=supervise:run ?", "@r*.txt"}));
  EXPECT_EQ(expand_reaper_globs({"nope"}, catalogue), (Ids{"nope"}));  // checked later
  const std::string error = usage_error([&] { expand_reaper_globs({"prco-*"}, catalogue); });
  EXPECT_NE(error.find("--reaper 'prco-*' matches no reaper"), std::string::npos) << error;
  EXPECT_NE(error.find("(reapers: pgroup, proc-walk, proc-pidfd, cgroup, tini)"), std::string::npos)
      << error;
}

TEST(Selection, WithoutRepeatsKeepsTheFirst) {
  EXPECT_EQ(without_repeats({"b", "a", "b", "c", "a"}), (Ids{"b", "a", "c"}));
}

CaseResult result(const std::string& scenario, const std::string& reaper, Verdict verdict,
                  Verdict expected, int run = 1) {
  CaseResult c;
  c.scenario = scenario;
  c.reaper = reaper;
  c.verdict = verdict;
  c.expected = expected;
  c.run = run;
  return c;
}

TEST(RerunFailed, TakesTheCellsThatDeviatedInOrderOnce) {
  RunResult last;
  last.cases = {result("a", "pgroup", Verdict::pass, Verdict::pass),
                result("a", "cgroup", Verdict::leak, Verdict::pass),
                result("b", "pgroup", Verdict::leak, Verdict::leak),  // a declared weakness
                result("b", "cgroup", Verdict::pass, Verdict::pass),
                result("a", "cgroup", Verdict::leak, Verdict::pass, 2),
                result("b", "cgroup", Verdict::setup_error, Verdict::pass, 2)};
  // A command whose bytes are not printable runs again as it was given.
  last.cases.push_back(result("c", "exec:x\\xff", Verdict::leak, Verdict::pass));
  last.cases.back().reaper_bytes = "exec:x\xff";
  const std::vector<std::pair<std::string, std::string>> want = {
      {"a", "cgroup"}, {"b", "cgroup"}, {"c", "exec:x\xff"}};
  EXPECT_EQ(failed_cells(last), want);
  last.cases = {result("a", "pgroup", Verdict::pass, Verdict::pass)};
  EXPECT_TRUE(failed_cells(last).empty());
}

TEST(RerunFailed, ADirectoryWithoutResultsIsAUsageError) {
  const std::string error =
      usage_error([] { read_last_run("/nonexistent/run", "--rerun-failed"); });
  EXPECT_NE(error.find("--rerun-failed /nonexistent/run: no results file "
                       "/nonexistent/run/results.json there"),
            std::string::npos)
      << error;
}

}  // namespace
}  // namespace reapcheck
