#include "harness/sandbox/host_item.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <sstream>

#include "reaper/os/read_file.h"

namespace reapcheck {

std::optional<pid_t> flock_holder(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  // /proc/locks names a lock's file as MAJOR:MINOR:INODE, the device numbers in hex:
  // "1: FLOCK  ADVISORY  WRITE 4242 00:1f:1234 0 EOF"; a waiter's line has "->" after the number.
  const std::string file = fmt::format("{:02x}:{:02x}:{}", major(st.st_dev), minor(st.st_dev),
                                       static_cast<unsigned long>(st.st_ino));
  std::istringstream lines(reaper::read_file("/proc/locks"));
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string number, type, mode, access, id;
    pid_t pid = 0;
    words >> number >> type >> mode >> access >> pid >> id;
    if (type == "FLOCK" && id == file) return pid;
  }
  return std::nullopt;
}

}  // namespace reapcheck
