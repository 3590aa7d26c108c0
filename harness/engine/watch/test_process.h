// Which test a process of a watched suite belongs to. A test runner that runs each test (or each
// test file) as a process of its own — cargo's test binaries, CTest's programs, `node --test`'s
// files, `go test`'s binaries — leaves that process on the lineage of whatever the test started,
// however it detached later: the test is the process on the chain the runner started for it.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace reapcheck {

// One process on the chain from a process of the suite up to the command the user gave: its pid
// and what it ran (empty when that is not known).
struct ChainLink {
  pid_t pid = 0;
  std::vector<std::string> argv;
};

// A test, as its runner names it; an empty name is the command's own (no test process found).
struct TestOf {
  std::string name;
  pid_t pid = 0;  // the test's process
};

// The test of the process `chain` starts with (nearest first, the command last): the link nearest
// the command that is a test's own process —
//   a cargo test binary (.../target/<profile>/deps/NAME-HASH): NAME;
//   a `go test` binary (NAME.test): NAME.test;
//   a program CTest started (its parent runs ctest): the test's CTest name, as `ctest_name` gives
//   it (the ctest's pid, the program's argv); when it gives none, the program's file name (a
//   script's, for a script);
//   a file `node --test` runs (a node process below a `node --test`): the file, relative to `dir`.
using CTestNamer = std::function<std::string(pid_t, const std::vector<std::string>&)>;
TestOf test_of(const std::vector<ChainLink>& chain, const std::filesystem::path& dir,
               const CTestNamer& ctest_name = {});

// How the process `chain` starts with may be named in a line: "perl (pid 41)", its program's file
// name and, for an interpreter, its script.
std::string link_name(const ChainLink& link);

}  // namespace reapcheck
