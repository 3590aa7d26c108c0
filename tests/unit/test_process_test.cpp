// Which test a process of a watched suite belongs to, from the chain that started it: each
// runner's own process per test, the one nearest the command, and none where the runner runs
// every test in one process.
#include "harness/engine/watch/test_process.h"

#include <gtest/gtest.h>

#include "harness/engine/watch/ctest_tests.h"

namespace reapcheck {
namespace {

const std::filesystem::path kDir = "/home/u/crate";

TEST(TestProcess, ACargoTestBinaryIsItsTestNamedWithoutItsHash) {
  const std::vector<ChainLink> chain = {
      {24, {"perl", "-e", "use POSIX; POSIX::setsid()", "300"}},
      {22, {"/home/u/crate/target/debug/deps/leaks_its_child-e78235779618fdde"}},
      {8, {"cargo", "test", "--offline"}}};
  const TestOf t = test_of(chain, kDir);
  EXPECT_EQ(t.name, "leaks_its_child");
  EXPECT_EQ(t.pid, 22);
  // rustc's own binaries under target/ that are not tests (a build script) have no hash form.
  EXPECT_EQ(test_of({{30, {"/home/u/crate/target/debug/build/x-1/build-script-build"}},
                     {8, {"cargo", "test"}}},
                    kDir)
                .name,
            "");
}

TEST(TestProcess, AProgramCTestRanIsItsTest) {
  const std::vector<ChainLink> chain = {{16, {}},  // a double fork's middle, gone unread
                                        {15, {"/home/u/p/build/daemon_test"}},
                                        {14, {"/home/u/p/build/daemon_test"}},
                                        {8, {"ctest", "--test-dir", "build"}}};
  const TestOf t = test_of(chain, "/home/u/p");
  EXPECT_EQ(t.name, "daemon_test");
  EXPECT_EQ(t.pid, 14);  // the one ctest started, not its fork
}

TEST(TestProcess, AScriptCTestRanIsItsTestByTheScriptsName) {
  const std::vector<ChainLink> chain = {{13, {"/bin/sh", "/home/u/p/stops.sh", "/home/u/p/pid"}},
                                        {8, {"ctest", "--test-dir", "build"}}};
  EXPECT_EQ(test_of(chain, "/home/u/p").name, "stops.sh");
}

// gtest_discover_tests: one binary, a test each, told apart by their CTest names.
TEST(TestProcess, AProcessCTestStartedIsNamedAsCTestNamesItsTest) {
  const std::vector<ChainLink> chain = {
      {21, {"/usr/bin/perl", "-e", "setsid; sleep 300"}},
      {13, {"/home/u/p/build/unit_tests", "--gtest_filter=Pool.Leaks"}},
      {8, {"ctest", "--test-dir", "build"}}};
  std::vector<pid_t> asked_of;
  const CTestNamer names = [&](pid_t ctest, const std::vector<std::string>& argv) {
    asked_of.push_back(ctest);
    return argv.back() == "--gtest_filter=Pool.Leaks" ? std::string("unit/Pool.Leaks")
                                                      : std::string();
  };
  const TestOf t = test_of(chain, "/home/u/p", names);
  EXPECT_EQ(t.name, "unit/Pool.Leaks");
  EXPECT_EQ(t.pid, 13);
  EXPECT_EQ(asked_of, std::vector<pid_t>{8});
  // No name for it (a listing that could not be read): its program's.
  const std::vector<ChainLink> unlisted = {
      {13, {"/home/u/p/build/unit_tests", "--gtest_filter=Pool.Other"}},
      {8, {"ctest", "--test-dir", "build"}}};
  EXPECT_EQ(test_of(unlisted, "/home/u/p", names).name, "unit_tests");
}

TEST(CTestTests, AListingNamesEachTestByTheCommandItRuns) {
  const auto tests = parse_ctest_listing(R"({"kind": "ctestInfo", "tests": [
      {"name": "starts", "command": ["/p/sleeper.sh", "/p/build/pid", "start"]},
      {"name": "stops", "command": ["/p/sleeper.sh", "/p/build/pid", "stop"]},
      {"name": "holds", "command": ["/p/sleeper.sh", "/p/build/held"]},
      {"name": "ends", "command": ["/p/sleeper.sh", "/p/build/held"]},
      {"name": "not-run"}]})");
  ASSERT_EQ(tests.size(), 4U);  // a test with no command is never a process's
  // A script's process: the kernel puts its interpreter before the command.
  EXPECT_EQ(ctest_name(tests, {"/bin/sh", "/p/sleeper.sh", "/p/build/pid", "stop"}), "stops");
  EXPECT_EQ(ctest_name(tests, {"/p/sleeper.sh", "/p/build/pid", "start"}), "starts");
  // Two tests of one command, told apart by their environment only: neither name is its.
  EXPECT_EQ(ctest_name(tests, {"/bin/sh", "/p/sleeper.sh", "/p/build/held"}), "");
  EXPECT_EQ(ctest_name(tests, {"/bin/sh", "/p/other.sh"}), "");
  EXPECT_THROW(parse_ctest_listing("The following tests passed:"), std::runtime_error);
  EXPECT_THROW(parse_ctest_listing(R"({"kind": "ctestInfo"})"), std::runtime_error);
}

TEST(TestProcess, AFileNodeTestRunsIsItsTestRelativeToTheFolder) {
  const std::vector<ChainLink> chain = {
      {42, {"/usr/bin/node", "/home/u/pkg/fixtures/server.js", "/tmp/port"}},
      {35, {"/usr/bin/node", "--test-reporter=spec", "/home/u/pkg/test/server.test.js"}},
      {21, {"node", "--test"}},
      {20, {"sh", "-c", "node --test"}},
      {8, {"npm", "test"}}};
  EXPECT_EQ(test_of(chain, "/home/u/pkg").name, "test/server.test.js");
  // Without a node --test above it, a node script is no test of its own.
  EXPECT_EQ(test_of({chain[0], chain[1], {8, {"npm", "start"}}}, "/home/u/pkg").name, "");
}

TEST(TestProcess, AGoTestBinaryIsItsTest) {
  EXPECT_EQ(
      test_of({{9, {"sleep", "1"}}, {7, {"/tmp/go-build1/b001/pkg.test"}}, {3, {"go", "test"}}},
              "/src")
          .name,
      "pkg.test");
}

TEST(TestProcess, OneProcessForEveryTestLeavesEverythingToTheCommand) {
  const TestOf t = test_of({{53, {"sleep", "300"}}, {8, {"python3", "-m", "unittest"}}}, kDir);
  EXPECT_EQ(t.name, "");
  EXPECT_EQ(t.pid, 0);
}

TEST(TestProcess, ALinkIsNamedByItsProgramAndScript) {
  EXPECT_EQ(link_name({35, {"/usr/bin/node", "--x", "/a/test/server.test.js"}}),
            "node server.test.js (pid 35)");
  EXPECT_EQ(link_name({24, {"perl", "-e", "code\nmore"}}), "perl -e (pid 24)");
  EXPECT_EQ(link_name({8, {"python3", "-m", "unittest", "discover"}}),
            "python3 -m unittest (pid 8)");
  EXPECT_EQ(link_name({15, {}}), "pid 15");
  // A program whose name only starts like an interpreter's is named by itself.
  EXPECT_EQ(link_name({16, {"/usr/bin/shellcheck", "x.sh"}}), "shellcheck (pid 16)");
}

}  // namespace
}  // namespace reapcheck
