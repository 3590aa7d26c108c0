#include "harness/model/scenario.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "harness/engine/tree/fixture.h"
#include "harness/model/scenario_set.h"
#include "harness/model/toml_reader.h"
#include "tests/unit/temp_dir.h"

namespace reapcheck {
namespace {

std::string error_of(const std::string& text, const std::string& file = "scenarios/x.toml") {
  try {
    parse_scenario(text, file);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

constexpr const char* kValid = R"(description = "d"
tags = ["escape"]

[tree]
role = "agent"
ignore = ["TERM"]

[[tree.children]]
role = "escaped"
setsid = true

[[tree.children.children]]
role = "sleeper"
exec = ["sleep", "infinity"]
)";

TEST(Scenario, ParsesTreeAndTags) {
  Scenario s = parse_scenario(kValid, "scenarios/setsid-thing.toml");
  EXPECT_EQ(s.id, "setsid-thing");
  EXPECT_EQ(s.tags, std::vector<std::string>{"escape"});
  EXPECT_EQ(s.tree.role, "agent");
  EXPECT_EQ(s.tree.ignore, std::vector<std::string>{"TERM"});
  ASSERT_EQ(s.tree.children.size(), 1u);
  EXPECT_TRUE(s.tree.children[0].setsid);
  EXPECT_EQ(s.tree.children[0].children[0].exec, (std::vector<std::string>{"sleep", "infinity"}));
  EXPECT_EQ(s.member_count(), 3);
  EXPECT_EQ(s.fixture, Fixture::perl);
}

TEST(Scenario, SyntaxErrorNamesFileLineAndColumn) {
  std::string e = error_of("description = \"d\"\n[tree\nrole = \"agent\"\n");
  EXPECT_EQ(e.rfind("scenarios/x.toml:2:", 0), 0u) << e;
}

TEST(Scenario, UnknownKeyNamesItsPositionAndTheValidKeys) {
  std::string e = error_of("description = \"d\"\n[tree]\nrole = \"agent\"\nsetsd = true\n");
  EXPECT_EQ(e.rfind("scenarios/x.toml:4:1: unknown key 'setsd' in a tree node", 0), 0u) << e;
  EXPECT_NE(e.find("setsid"), std::string::npos);
}

TEST(Scenario, RejectsWhatAFixtureCouldNotBuild) {
  const std::string head = "description = \"d\"\n[tree]\nrole = \"agent\"\n";
  EXPECT_NE(error_of(head + "ignore = [\"KILL\"]\n").find("not a signal a member can catch"),
            std::string::npos);
  EXPECT_NE(error_of(head + "exec = [\"sleep\"]\n").find("cannot exec"), std::string::npos);
  EXPECT_NE(error_of(head + "[[tree.children]]\nrole = \"agent\"\n").find("used twice"),
            std::string::npos);
  EXPECT_NE(error_of(head + "[[tree.children]]\nsetsid = true\n").find("missing key 'role'"),
            std::string::npos);
  EXPECT_NE(error_of("description = \"d\"\n").find("needs either [tree]"), std::string::npos);
  EXPECT_NE(error_of("[tree]\nrole = \"a\"\n").find("missing key 'description'"),
            std::string::npos);
  const std::string agent =
      "description = \"d\"\n[agent]\ncommand = [\"npm\"]\nmembers = [\"a\"]\n";
  EXPECT_NE(error_of(agent + "package = \"../../../../etc\"\n").find("a folder of fixtures/node"),
            std::string::npos);
  EXPECT_NE(error_of(agent + "package = \"..\"\n").find("a folder of fixtures/node"),
            std::string::npos);
}

TEST(Scenario, DescribesTheScenarioOnlyNotWhatReapersDoWithIt) {
  const std::string head = "description = \"d\"\n[tree]\nrole = \"agent\"\n";
  std::string e = error_of(head + "[known.pgroup]\nverdict = \"leak\"\nreason = \"r\"\n");
  EXPECT_EQ(e.rfind("scenarios/x.toml:4:2: unknown key 'known' in the scenario", 0), 0u) << e;
  EXPECT_NE(error_of("fixture = \"python\"\n" + head).find("'fixture' is perl or node"),
            std::string::npos);
}

TEST(Scenario, BystandersAndTheirRaces) {
  const std::string head =
      "description = \"d\"\n[tree]\nrole = \"agent\"\n"
      "[[tree.children]]\nrole = \"victim\"\n";
  Scenario s = parse_scenario(head +
                                  "[[bystanders]]\nkind = \"lookalike\"\n"
                                  "[[bystanders]]\nkind = \"recycled-pid\"\ntarget = \"victim\"\n",
                              "scenarios/r.toml");
  ASSERT_EQ(s.bystanders.size(), 2u);
  EXPECT_TRUE(s.has_bystander(BystanderKind::lookalike));
  ASSERT_NE(s.race(), nullptr);
  EXPECT_EQ(s.race()->target, "victim");

  EXPECT_NE(
      error_of(head + "[[bystanders]]\nkind = \"neighbour\"\n").find("unknown bystander kind"),
      std::string::npos);
  EXPECT_NE(error_of(head + "[[bystanders]]\nkind = \"recycled-pid\"\n").find("needs 'target'"),
            std::string::npos);
  EXPECT_NE(error_of(head + "[[bystanders]]\nkind = \"recycled-pid\"\ntarget = \"nobody\"\n")
                .find("no member has the role 'nobody'"),
            std::string::npos);
  EXPECT_NE(error_of(head + "[[bystanders]]\nkind = \"lookalike\"\ntarget = \"victim\"\n")
                .find("takes no 'target'"),
            std::string::npos);
  EXPECT_NE(error_of(head + "[[bystanders]]\nkind = \"recycled-pid\"\ntarget = \"victim\"\n"
                            "[[bystanders]]\nkind = \"recycled-pgid\"\ntarget = \"agent\"\n")
                .find("one race"),
            std::string::npos);
  EXPECT_NE(error_of(head + "hold = true\n").find("wait for a race"), std::string::npos);
}

TEST(Scenario, CopiesAndChainsExpandIntoDistinctRoles) {
  Scenario s = parse_scenario(
      "description = \"d\"\n[tree]\nrole = \"agent\"\n"
      "[[tree.children]]\nrole = \"leaf\"\ncopies = 3\n"
      "[[tree.children]]\nrole = \"link\"\nchain = 2\n",
      "scenarios/e.toml");
  EXPECT_EQ(s.member_count(), 6);
  ASSERT_EQ(s.tree.children.size(), 4u);
  EXPECT_EQ(s.tree.children[2].role, "leaf-3");
  EXPECT_EQ(s.tree.children[3].role, "link-1");
  EXPECT_EQ(s.tree.children[3].children.at(0).role, "link-2");
  const std::string head = "description = \"d\"\n[tree]\nrole = \"agent\"\n";
  EXPECT_NE(error_of(head + "[[tree.children]]\nrole = \"x\"\ncopies = 0\n").find("from 1 to 5000"),
            std::string::npos);
  EXPECT_NE(error_of(head + "[[tree.children]]\nrole = \"x\"\ncopies = 2\n"
                            "[[tree.children.children]]\nrole = \"y\"\n")
                .find("without children"),
            std::string::npos);
  EXPECT_NE(error_of(head + "stop_self = true\n").find("cannot be 'stop_self'"), std::string::npos);
}

TEST(Scenario, MembersThatStopClearTheirEnvironmentOrLiveInCgroups) {
  Scenario s = parse_scenario(
      "description = \"d\"\n[tree]\nrole = \"agent\"\ntransient = true\n"
      "[[tree.children]]\nrole = \"job\"\nstop_self = \"TSTP\"\n"
      "[[tree.children]]\nrole = \"plain\"\nclear_env = true\n"
      "[[tree.children]]\nrole = \"db\"\ncgroup = \"web/db\"\nfreeze = true\n",
      "scenarios/m.toml");
  EXPECT_TRUE(s.tree.transient);  // an agent that exited before the kill
  EXPECT_TRUE(s.tree.children[0].stop_self);
  EXPECT_EQ(s.tree.children[0].stop_signal, "TSTP");
  EXPECT_TRUE(s.tree.children[1].clear_env);
  EXPECT_EQ(s.tree.children[2].cgroup, "web/db");
  EXPECT_TRUE(s.uses_cgroups());
  EXPECT_EQ(s.frozen_roles(), std::vector<std::string>{"db"});
  EXPECT_EQ(s.stopped_roles(), std::vector<std::string>{"job"});

  const std::string head = "description = \"d\"\n[tree]\nrole = \"agent\"\n[[tree.children]]\n";
  EXPECT_EQ(error_of(head + "role = \"x\"\nstop_self = \"HUP\"\n")
                .rfind("scenarios/x.toml:6:13: 'stop_self' is true or a stop signal", 0),
            0u);
  EXPECT_NE(error_of(head + "role = \"x\"\ncgroup = \"../up\"\n").find("a path of names"),
            std::string::npos);
  EXPECT_NE(error_of(head + "role = \"x\"\nfreeze = true\n").find("'freeze' freezes"),
            std::string::npos);
  EXPECT_NE(error_of(head + "role = \"x\"\nclear_env = true\nexec = [\"sleep\"]\n")
                .find("cannot also exec"),
            std::string::npos);
}

TEST(Scenario, CaseTableSaysHowTheKillIsRequestedAndInWhatEnvironment) {
  const std::string tree = "description = \"d\"\n[tree]\nrole = \"agent\"\n";
  Scenario s =
      parse_scenario(tree +
                         "[case]\nrequest = \"orchestrator-killed\"\nblocked = [\"TERM\"]\n"
                         "path = \"busybox-ps\"\n",
                     "scenarios/c.toml");
  EXPECT_EQ(s.setup.request, CaseSetup::Request::orchestrator_killed);
  EXPECT_EQ(s.setup.blocked, std::vector<std::string>{"TERM"});
  EXPECT_EQ(s.setup.path, CaseSetup::Path::busybox_ps);
  EXPECT_EQ(parse_scenario(tree, "scenarios/d.toml").setup.request, CaseSetup::Request::reaper);

  EXPECT_EQ(error_of(tree + "[case]\nrequest = \"politely\"\n")
                .rfind("scenarios/x.toml:5:11: 'request' is reaper, orchestrator-killed or "
                       "from-agent",
                       0),
            0u);
  EXPECT_NE(error_of(tree + "[case]\nblocked = [\"KILL\"]\n").find("not a signal a member can"),
            std::string::npos);
  EXPECT_NE(error_of(tree + "[case]\npath = \"/opt/bin\"\n").find("'path' is standard"),
            std::string::npos);
  EXPECT_NE(error_of(tree + "[case]\nwhen = \"now\"\n").find("unknown key 'when' in [case]"),
            std::string::npos);
  EXPECT_NE(error_of("description = \"d\"\n[agent]\ncommand = [\"npm\"]\npackage = \"p\"\n"
                     "members = [\"m\"]\n[case]\nrequest = \"from-agent\"\n")
                .find("'from-agent' needs a perl [tree]"),
            std::string::npos);
  EXPECT_NE(error_of(tree + "[[tree.children]]\nrole = \"v\"\n[case]\nrequest = \"from-agent\"\n"
                            "[[bystanders]]\nkind = \"recycled-pid\"\ntarget = \"v\"\n")
                .find("needs request = \"reaper\""),
            std::string::npos);
}

// A scenario file is input from anyone: a tree too big or too deep for the fixtures is refused
// by a message naming the limit, before anything is built (the fuzz targets hold it to that).
TEST(Scenario, TreesBeyondTheFixturesLimitsAreRefused) {
  const std::string head = "description = \"d\"\n[tree]\nrole = \"agent\"\n";
  EXPECT_NE(error_of(head + "[[tree.children]]\nrole = \"x\"\nchain = 300\n").find("at most 250"),
            std::string::npos);
  EXPECT_NE(error_of(head + "[[tree.children]]\nrole = \"x\"\ncopies = 3000\n"
                            "[[tree.children]]\nrole = \"y\"\ncopies = 3000\n")
                .find("more than 5000 members"),
            std::string::npos);
  std::string nested = "description = \"d\"\ntree = ";
  for (int i = 0; i < 260; ++i) nested += "{role = \"r" + std::to_string(i) + "\", children = [";
  nested += "{role = \"leaf\"}";
  for (int i = 0; i < 260; ++i) nested += "]}";
  EXPECT_NE(error_of(nested + "\n").find("nested value depth"),
            std::string::npos);  // toml++ stops it first
  EXPECT_EQ(
      parse_scenario(head + "[[tree.children]]\nrole = \"x\"\nchain = 249\n", "scenarios/c.toml")
          .member_count(),
      250);
  EXPECT_NE(error_of(head + "[[tree.children]]\nrole = \"a\\u0007b\"\n").find("one word"),
            std::string::npos);
}

// One bad file in a directory does not hide the others: it is kept with its error, for the run
// that selects it to fail with.
TEST(ScenarioSet, ABrokenFileIsKeptWithItsErrorAndTheOthersLoad) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "scenario-set-broken";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "good.toml") << kValid;
  std::ofstream(dir / "bad.toml") << "description = \n";
  const ScenarioSet set = load_scenario_set(dir, {"pgroup"});
  ASSERT_EQ(set.ids(), std::vector<std::string>{"good"});
  const BrokenScenario* bad = set.find_broken("bad");
  ASSERT_NE(bad, nullptr);
  EXPECT_EQ(bad->error.rfind((dir / "bad.toml").string() + ":1:", 0), 0u) << bad->error;
  std::filesystem::remove_all(dir);
}

// A transient member whose parent reaps it must be gone, not a zombie, when the kill is
// requested: the case waits for that, and only for those.
TEST(Scenario, TransientMembersTheirParentReaps) {
  const Scenario s = parse_scenario(
      "description = \"d\"\n[tree]\nrole = \"agent\"\n"
      "[[tree.children]]\nrole = \"middle\"\ntransient = true\n"
      "[[tree.children.children]]\nrole = \"orphan\"\n"
      "[[tree.children]]\nrole = \"neglectful\"\nreap = false\n"
      "[[tree.children.children]]\nrole = \"zombie\"\ntransient = true\n",
      "scenarios/t.toml");
  EXPECT_EQ(s.transient_roles(), (std::vector<std::string>{"middle", "zombie"}));
  EXPECT_EQ(s.reaped_transient_roles(), std::vector<std::string>{"middle"});
}

TEST(Scenario, FileNameMustBeAnId) {
  EXPECT_NE(error_of(kValid, "scenarios/Bad Name.toml").find("must be a scenario id"),
            std::string::npos);
}

TEST(Scenario, CMembersMarkTheirSubtreeAndTakeOnlyRolesAndChildren) {
  const std::string head = "description = \"d\"\n[tree]\nrole = \"agent\"\n";
  Scenario s = parse_scenario(head +
                                  "[[tree.children]]\nrole = \"link\"\nc_member = true\n"
                                  "chain = 3\n[[tree.children.children]]\nrole = \"leaf\"\n"
                                  "copies = 2\n",
                              "scenarios/c.toml");
  EXPECT_FALSE(s.tree.c_member);
  const TreeNode* n = &s.tree.children.at(0);
  for (int depth = 0; depth < 3; ++depth) {
    EXPECT_TRUE(n->c_member) << n->role;
    if (depth < 2) n = &n->children.at(0);
  }
  ASSERT_EQ(n->children.size(), 2u);
  EXPECT_TRUE(n->children[1].c_member) << "below a c_member, every member is one";
  EXPECT_EQ(s.member_count(), 6);

  // Below a c_member, a member with anything but a role and children is refused, by name.
  const std::string c_head = head + "c_member = true\n[[tree.children]]\nrole = \"child\"\n";
  for (const char* key :
       {"setsid = true", "ignore = [\"TERM\"]", "reap = false", "rename = \"x\"", "hold = true"}) {
    const std::string e = error_of(c_head + key + "\n");
    EXPECT_NE(e.find("member 'child' is a C member"), std::string::npos) << key << ": " << e;
  }
  EXPECT_NE(
      error_of(head + "c_member = true\nsetsid = true\n").find("member 'agent' is a C member"),
      std::string::npos);
  EXPECT_NE(error_of("fixture = \"node\"\n" + head + "c_member = true\n").find("node fixture"),
            std::string::npos);
  EXPECT_NE(
      error_of(head + "c_member = true\n[case]\nrequest = \"from-agent\"\n").find("no c_member"),
      std::string::npos);
}

TEST(Scenario, EveryShippedScenarioLoads) {
  auto all = load_scenarios(std::filesystem::path(REAPCHECK_SOURCE_DIR) / "scenarios");
  EXPECT_GE(all.size(), 4u);
  for (const auto& s : all) EXPECT_FALSE(s.description.empty()) << s.id;
}

TEST(FixtureSpec, MirrorsTheTree) {
  Scenario s = parse_scenario(kValid, "scenarios/y.toml");
  auto j = tree_spec(s.tree);
  EXPECT_EQ(j["role"], "agent");
  EXPECT_EQ(j["ignore"][0], "TERM");
  EXPECT_EQ(j["children"][0]["setsid"], true);
  EXPECT_EQ(j["children"][0]["children"][0]["exec"][1], "infinity");
  EXPECT_FALSE(j.contains("exec"));
}

TEST(FixtureSpec, MirrorsTheNewMemberOptions) {
  TreeNode n;
  n.role = "db";
  n.stop_self = true;
  n.stop_signal = "TTIN";
  n.clear_env = true;
  n.cgroup = "web/db";
  n.freeze = true;
  auto j = tree_spec(n);
  EXPECT_EQ(j["stop_signal"], "TTIN");
  EXPECT_EQ(j["clear_env"], true);
  EXPECT_EQ(j["cgroup"], "web/db");
  EXPECT_EQ(j["freeze"], true);
  EXPECT_FALSE(tree_spec(TreeNode{}).contains("cgroup"));
}

TEST(FixtureSpec, MarksCMembersAndTheSiblingFollowsTheAgent) {
  Scenario s = parse_scenario(
      "description = \"d\"\n[tree]\nrole = \"agent\"\nc_member = true\n"
      "[[tree.children]]\nrole = \"leaf\"\n",
      "scenarios/c.toml");
  auto j = tree_spec(s.tree);
  EXPECT_EQ(j["c_member"], true);
  EXPECT_EQ(j["children"][0]["c_member"], true);
  EXPECT_FALSE(tree_spec(TreeNode{}).contains("c_member"));

  // The sibling agent is built the way the agent is.
  const auto dir = std::filesystem::temp_directory_path() / "reapcheck-sibling-spec-test";
  std::filesystem::remove_all(dir);
  prepare_sibling(s, dir, Layout::of_running_binary());
  std::ifstream in(dir / ".reapcheck" / "spec.json");
  const auto sibling = nlohmann::json::parse(in);
  EXPECT_EQ(sibling["c_member"], true);
  EXPECT_EQ(sibling["children"][0]["c_member"], true);
  std::filesystem::remove_all(dir);
}

TEST(FixtureSpec, AHeldMemberIgnoresTermAndExitsOnUsr1) {
  TreeNode n;
  n.role = "holder";
  n.hold = true;
  auto j = tree_spec(n);
  EXPECT_EQ(j["ignore"], nlohmann::json::array({"TERM"}));
  EXPECT_EQ(j["exit_on"], nlohmann::json::array({"USR1"}));
}

}  // namespace
}  // namespace reapcheck

namespace reapcheck {
namespace {

TEST(Scenario, AProjectsOwnCommandRunsInItsFolderAndIsReadyAsSaid) {
  const Scenario s = parse_scenario(R"(description = "d"
[agent]
command = ["npm", "run", "dev"]
dir = ".."
[agent.ready]
log = "ready in [0-9]+ ms"
)",
                                    "/srv/app/.reapcheck/dev.toml");
  ASSERT_TRUE(s.agent);
  EXPECT_TRUE(s.agent->observed());
  EXPECT_EQ(s.agent->dir, "/srv/app");
  EXPECT_EQ(s.agent->ready.log, "ready in [0-9]+ ms");
  EXPECT_EQ(s.member_count(), 0) << "its members are found, not declared";
}

// The gate and `reproduce` test the same thing: a project's own command meets a process naming
// its folder in both, unless its scenario file says otherwise.
TEST(Scenario, AProjectsOwnCommandHasALookalikeBesideItAsUnderReproduce) {
  const std::string head = "description = \"d\"\n[agent]\ncommand = [\"x\"]\ndir = \".\"\n";
  EXPECT_TRUE(parse_scenario(head, "/srv/app/x.toml").has_bystander(BystanderKind::lookalike));
  EXPECT_TRUE(command_scenario({"x"}, "/srv/app", {}).has_bystander(BystanderKind::lookalike));
  const Scenario without = parse_scenario(head + "lookalike = false\n", "/srv/app/x.toml");
  EXPECT_FALSE(without.has_bystander(BystanderKind::lookalike));
  EXPECT_NE(
      error_of(head + "[[bystanders]]\nkind = \"lookalike\"\n").find("has a lookalike already"),
      std::string::npos);
  EXPECT_NE(error_of("description = \"d\"\n[agent]\ncommand = [\"x\"]\npackage = \"p\"\n"
                     "members = [\"a\"]\nlookalike = false\n")
                .find("'lookalike' goes with 'dir'"),
            std::string::npos);
}

TEST(Scenario, AProjectsOwnCommandTakesNoDeclaredMembersAndOneReadyCondition) {
  const std::string head = "description = \"d\"\n[agent]\ncommand = [\"x\"]\n";
  EXPECT_NE(error_of(head + "dir = \".\"\nmembers = [\"a\"]\n").find("found by observation"),
            std::string::npos);
  EXPECT_NE(error_of(head + "dir = \".\"\n[agent.ready]\nport = 1\nafter_ms = 5\n")
                .find("one of port, log or after_ms"),
            std::string::npos);
  EXPECT_NE(error_of(head + "dir = \".\"\n[agent.ready]\nlog = \"(\"\n")
                .find("is not a regular expression"),
            std::string::npos);
  EXPECT_NE(error_of(head + "dir = \".\"\n[agent.ready]\nport = 70000\n").find("1 to 65535"),
            std::string::npos);
  EXPECT_NE(
      error_of(head + "package = \"dev-server\"\nmembers = [\"a\"]\n[agent.ready]\nport = 1\n")
          .find("[agent.ready] is for a project's own command"),
      std::string::npos);
}

}  // namespace
}  // namespace reapcheck

namespace reapcheck {
namespace {

// A folder of the test's own, removed afterwards.
class InputFiles : public testing::TempDirTest {
 protected:
  std::string error_reading(const std::string& name) {
    try {
      read_input(dir_ / name);
    } catch (const InputError& e) {
      return e.what();
    }
    return "(no error)";
  }
};

TEST_F(InputFiles, OnlyRegularFilesAreReadAndEachRefusalSaysWhy) {
  ASSERT_EQ(::mkfifo((dir_ / "fifo.toml").c_str(), 0600), 0);        // would block a plain open
  std::filesystem::create_symlink("/dev/zero", dir_ / "zero.toml");  // would never end
  std::filesystem::create_directory(dir_ / "dir.toml");
  std::filesystem::create_symlink("loop.toml", dir_ / "loop.toml");
  std::ofstream(dir_ / "big.toml") << std::string(kMaxInputBytes + 1, '#');
  EXPECT_NE(error_reading("fifo.toml").find("fifo.toml: not a regular file"), std::string::npos);
  EXPECT_NE(error_reading("zero.toml").find("zero.toml: not a regular file"), std::string::npos);
  EXPECT_NE(error_reading("dir.toml").find("dir.toml: a directory, not a file"), std::string::npos);
  EXPECT_NE(error_reading("loop.toml").find("loop.toml: a loop of symbolic links"),
            std::string::npos);
  EXPECT_NE(error_reading("big.toml").find("over the limit of 1048576"), std::string::npos);
  EXPECT_NE(error_reading("none.toml").find("none.toml: cannot read the file: No such file"),
            std::string::npos);
  std::ofstream(dir_ / "ok.toml") << "description = \"d\"\n";
  EXPECT_EQ(read_input(dir_ / "ok.toml"), "description = \"d\"\n");
}

TEST(Scenario, FreeTextIsBoundedWithTheLimitInTheError) {
  const std::string tree = "\n[tree]\nrole = \"agent\"\n";
  EXPECT_NE(error_of("description = \"" + std::string(1001, 'x') + "\"" + tree)
                .find("'description' is 1001 bytes long, over its limit of 1000"),
            std::string::npos);
  EXPECT_EQ(error_of("description = \"" + std::string(1000, 'x') + "\"" + tree), "(no error)");
  EXPECT_NE(error_of("description = \"d\"\n[tree]\nrole = \"" + std::string(65, 'r') + "\"\n")
                .find("over its limit of 64"),
            std::string::npos);
}

}  // namespace
}  // namespace reapcheck
