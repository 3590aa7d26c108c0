// A test fixture with a folder of its own under /tmp, made before each test and removed after.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

namespace reapcheck::testing {

class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/reapcheck-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
};

}  // namespace reapcheck::testing
