#include "reports/file_output.h"

#include <fcntl.h>
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

// An existing path that is not a regular file once links are followed: /dev/stdout, a FIFO.
bool is_special(const std::filesystem::path& file) {
  std::error_code ec;
  const auto st = std::filesystem::status(file, ec);
  return !ec && std::filesystem::exists(st) && !std::filesystem::is_regular_file(st) &&
         !std::filesystem::is_directory(st);
}

void write_in_place(const std::filesystem::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary);
  if (!out) fail(file, std::strerror(errno));
  out << text;
  out.flush();
  if (!out) fail(file, std::strerror(errno));
}

}  // namespace

void write_text_file(const std::filesystem::path& file, const std::string& text) {
  if (is_special(file)) {
    write_in_place(file, text);
    return;
  }
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
  if (std::filesystem::is_directory(file, ec)) fail(file, "is a directory");
  if (is_special(file)) {
    // Not opened: closing a FIFO's only writer would end its reader before the report comes.
    if (::access(file.c_str(), W_OK) != 0) fail(file, std::strerror(errno));
    return;
  }
  // The real test: what write_text_file does first, a new file beside the report.
  const auto tmp = temporary_beside(file);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0 && errno == EEXIST && ::access(tmp.c_str(), W_OK) == 0) return;  // a stale one
  if (fd < 0) fail(file, std::string("cannot create files there: ") + std::strerror(errno));
  ::close(fd);
  ::unlink(tmp.c_str());
}

}  // namespace reapcheck
