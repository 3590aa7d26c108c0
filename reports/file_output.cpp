#include "reports/file_output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace reapcheck {
namespace {

std::filesystem::path temporary_beside(const std::filesystem::path& file) {
  auto tmp = file;
  tmp += ".tmp";
  return tmp;
}

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& why) {
  throw ReportWriteError(file.string() + ": " + why);
}

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

// A report path is a regular file or a new one; anything else is refused, never opened (an open
// of a FIFO with no reader blocks for ever) nor renamed over.
void check_target(const std::filesystem::path& file) {
  struct stat st {};
  if (::lstat(file.c_str(), &st) != 0) {
    if (errno == ENOENT) return;
    fail(file, std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) {
    fail(file,
         "is " + kind_of(st.st_mode) + "; a report is written only to a regular file or a new one");
  }
}

}  // namespace

void write_text_file(const std::filesystem::path& file, const std::string& text) {
  check_target(file);
  const auto tmp = temporary_beside(file);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) fail(file, std::strerror(errno));
    out << text;
    out.close();
    if (!out) {
      const int err = errno;
      std::filesystem::remove(tmp);
      fail(file, std::strerror(err));
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, file, ec);
  if (ec) {
    std::filesystem::remove(tmp);
    fail(file, ec.message());
  }
}

void check_writable(const std::filesystem::path& file) {
  std::error_code ec;
  const auto dir = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
  if (!std::filesystem::is_directory(dir, ec)) {
    fail(file, "its folder " + dir.string() + " does not exist (reapcheck creates only --out DIR)");
  }
  check_target(file);
  // The real test: what write_text_file does first, a new file beside the report.
  const auto tmp = temporary_beside(file);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0 && errno == EEXIST && ::access(tmp.c_str(), W_OK) == 0) return;  // a stale one
  if (fd < 0) fail(file, std::string("cannot create files there: ") + std::strerror(errno));
  ::close(fd);
  ::unlink(tmp.c_str());
}

}  // namespace reapcheck
