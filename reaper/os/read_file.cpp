#include "reaper/os/read_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "reaper/os/unique_fd.h"

namespace reaper {

std::optional<std::string> read_file_at(int dirfd, const std::string& rel) {
  const UniqueFd fd(::openat(dirfd, rel.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return std::nullopt;
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return std::nullopt;  // ESRCH and friends: the process died while we read it
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

std::string read_file(const std::string& path) {
  return read_file_at(AT_FDCWD, path).value_or("");
}

}  // namespace reaper
