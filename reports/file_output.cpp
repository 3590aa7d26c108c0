#include "reports/file_output.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "harness/support/write_all.h"
#include "reaper/os/unique_fd.h"

namespace reapcheck {
namespace {

using reaper::UniqueFd;

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

// The report's folder, opened to create and rename in, or the reason it cannot be.
UniqueFd open_folder(const std::filesystem::path& file) {
  const auto dir = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
  UniqueFd fd(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!fd && (errno == ENOENT || errno == ENOTDIR)) {
    fail(file, "its folder " + dir.string() + " does not exist (reapcheck creates only --out DIR)");
  }
  if (!fd) fail(file, "its folder " + dir.string() + ": " + std::strerror(errno));
  return fd;
}

// The report's own name in its folder, once it is known to be a regular file or nothing yet:
// never opened, only renamed over.
std::string target_name(int dir, const std::filesystem::path& file) {
  std::string name = file.filename().string();
  if (name.empty() || name == "." || name == "..") fail(file, "names a folder, not a file");
  struct stat st {};
  if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    if (!S_ISREG(st.st_mode)) {
      fail(file, "is " + kind_of(st.st_mode) +
                     "; a report is written only to a regular file or a new one");
    }
  } else if (errno != ENOENT) {
    fail(file, std::strerror(errno));
  }
  return name;
}

// A new file beside the report under a name of its own (NAME.tmp-XXXXXX), created exclusively:
// whatever is already there, a planted symlink included, is left alone.
struct Temporary {
  UniqueFd fd;
  std::string name;
};

Temporary create_temporary(int dir, const std::filesystem::path& file, const std::string& name) {
  static constexpr char kLetters[] =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  for (int attempt = 0; attempt < 100; ++attempt) {
    unsigned char random[6];
    if (::getrandom(random, sizeof random, 0) != sizeof random) {
      fail(file, std::string("no random name for a temporary: ") + std::strerror(errno));
    }
    std::string tmp = name + ".tmp-";
    for (unsigned char r : random) tmp += kLetters[r % (sizeof kLetters - 1)];
    UniqueFd fd(
        ::openat(dir, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666));
    if (fd) return {std::move(fd), std::move(tmp)};
    if (errno != EEXIST) {
      fail(file, std::string("cannot create files there: ") + std::strerror(errno));
    }
  }
  fail(file, "no free name for a temporary beside it");
}

}  // namespace

void write_text_file(const std::filesystem::path& file, const std::string& text) {
  const UniqueFd dir = open_folder(file);
  const std::string name = target_name(dir.get(), file);
  Temporary tmp = create_temporary(dir.get(), file, name);
  const auto discard = [&](int err) {
    ::unlinkat(dir.get(), tmp.name.c_str(), 0);
    fail(file, std::strerror(err));
  };
  if (!write_all(tmp.fd.get(), text) || ::fdatasync(tmp.fd.get()) != 0) discard(errno);
  tmp.fd.reset();
  // Looked at again: what the path names may have changed while the run went on.
  try {
    target_name(dir.get(), file);
  } catch (const ReportWriteError&) {
    ::unlinkat(dir.get(), tmp.name.c_str(), 0);
    throw;
  }
  if (::renameat(dir.get(), tmp.name.c_str(), dir.get(), name.c_str()) != 0) discard(errno);
}

void check_writable(const std::filesystem::path& file) {
  const UniqueFd dir = open_folder(file);
  const std::string name = target_name(dir.get(), file);
  // The real test: what write_text_file does first, a new file beside the report.
  const Temporary tmp = create_temporary(dir.get(), file, name);
  ::unlinkat(dir.get(), tmp.name.c_str(), 0);
}

}  // namespace reapcheck
