#include "reports/file_output.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace reapcheck {
namespace {

namespace fs = std::filesystem;

class ReportFile : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/reapcheck-file-output-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string read(const fs::path& file) {
    std::ifstream in(file);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }

  fs::path dir_;
};

// A FIFO (with no reader), a directory, a device or a symlink is no report: refused before a run
// and at the write, naming the path, and never opened (an open of the FIFO would block for ever).
TEST_F(ReportFile, OnlyARegularFileOrANewOneIsWritten) {
  const auto fifo = dir_ / "r.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  fs::create_directory(dir_ / "folder.xml");
  fs::create_symlink(dir_ / "elsewhere.json", dir_ / "link.json");
  for (const fs::path& file :
       {fifo, dir_ / "folder.xml", fs::path("/dev/null"), dir_ / "link.json"}) {
    ASSERT_THROW(check_writable(file), ReportWriteError) << file;
    try {
      write_text_file(file, "{}\n");
      ADD_FAILURE() << file << " was written";
    } catch (const ReportWriteError& e) {
      EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
    }
  }
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.json"));
  EXPECT_FALSE(fs::exists(dir_ / "elsewhere.json"));
  EXPECT_NO_THROW(check_writable(dir_ / "new.json"));
  write_text_file(dir_ / "new.json", "one\n");
  write_text_file(dir_ / "new.json", "two\n");
  EXPECT_EQ(read(dir_ / "new.json"), "two\n");
}

}  // namespace
}  // namespace reapcheck
