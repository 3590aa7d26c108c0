// The tests CTest runs, for naming the processes it starts: `ctest --show-only=json-v1` lists
// each test by name with its command, and CTest starts a test's process on that command — with
// the interpreter of a script before it (#!/bin/sh), as the kernel starts a script. Many tests
// run one program (gtest_discover_tests: one binary, a filter each), so the program's name alone
// does not tell them apart.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace reapcheck {

struct CTestTest {
  std::string name;
  std::vector<std::string> command;
};

// The tests of a json-v1 listing; throws std::runtime_error on text that is not one.
std::vector<CTestTest> parse_ctest_listing(std::string_view json);

// The name of the one test whose command `argv` runs; empty when none does, or when several do
// (tests told apart only by their folder or environment).
std::string ctest_name(const std::vector<CTestTest>& tests, const std::vector<std::string>& argv);

// The tests the ctest that ran `argv` in `cwd` knows: it is run again there with
// --show-only=json-v1 added (which runs no test), with `env` as its environment, its output read
// by `deadline`. Empty when it cannot tell (not a ctest, a listing it refuses, the deadline).
std::vector<CTestTest> list_ctest_tests(const std::vector<std::string>& argv,
                                        const std::string& cwd, const std::vector<std::string>& env,
                                        std::chrono::steady_clock::time_point deadline);

}  // namespace reapcheck
