#include "reports/file_output.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/unit/temp_dir.h"

namespace reapcheck {
namespace {

namespace fs = std::filesystem;

class ReportFile : public testing::TempDirTest {
 protected:
  static std::string read(const fs::path& file) {
    std::ifstream in(file);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
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

// The temporary is created exclusively beside the report: a symlink planted at FILE.tmp (or any
// file there) is neither followed nor opened, and the report is a regular file afterwards.
TEST_F(ReportFile, APlantedTemporaryIsNeverFollowed) {
  const auto victim = dir_ / "victim";
  { std::ofstream(victim) << "precious\n"; }
  const auto report = dir_ / "r.json";
  { std::ofstream(report) << "old\n"; }
  fs::create_symlink(victim, dir_ / "r.json.tmp");
  EXPECT_NO_THROW(check_writable(report));
  write_text_file(report, "{\"cases\": []}\n");
  EXPECT_EQ(read(victim), "precious\n");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(report)));
  EXPECT_EQ(read(report), "{\"cases\": []}\n");
  EXPECT_TRUE(fs::is_symlink(dir_ / "r.json.tmp"));
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++entries;
  EXPECT_EQ(entries, 3) << "a temporary was left behind";  // victim, r.json, r.json.tmp
}

}  // namespace
}  // namespace reapcheck
