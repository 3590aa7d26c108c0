#include "harness/sandbox/host_sockets.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <optional>
#include <sstream>

#include "reaper/os/sys_error.h"
#include "reaper/os/unique_fd.h"

namespace reapcheck {
namespace {

namespace fs = std::filesystem;
using reaper::UniqueFd;

// Before the path, in each line of /proc/net/unix: Num RefCount Protocol Flags Type St Inode.
constexpr int kFieldsBeforePath = 7;

// An empty file, mode 0, in `dir` (a tmpfs of the case's), removed with the object: what covers
// a socket. The bind mounts made of it outlive its name.
class Cover {
 public:
  explicit Cover(const fs::path& dir) {
    std::string name = (dir / ".socket-cover-XXXXXX").string();
    const UniqueFd fd(::mkostemp(name.data(), O_CLOEXEC));
    if (!fd || ::fchmod(fd.get(), 0) != 0) reaper::throw_sys("make a file to cover sockets with");
    path_ = name;
  }
  ~Cover() { ::unlink(path_.c_str()); }
  Cover(const Cover&) = delete;
  Cover& operator=(const Cover&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

}  // namespace

std::vector<fs::path> bound_socket_paths(const std::string& proc_net_unix) {
  std::vector<fs::path> out;
  std::istringstream lines(proc_net_unix);
  std::string line;
  std::getline(lines, line);  // the header
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string field;
    int read = 0;
    while (read < kFieldsBeforePath && fields >> field) ++read;
    fields.get();  // the space before the path
    std::string path;
    std::getline(fields, path);
    if (read < kFieldsBeforePath || path.empty() || path.front() != '/') continue;
    if (std::find(out.begin(), out.end(), path) == out.end()) out.emplace_back(path);
  }
  return out;
}

int cover_sockets(const std::vector<fs::path>& paths, const fs::path& workspace) {
  std::optional<Cover> cover;
  int covered = 0;
  for (const fs::path& path : paths) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode)) continue;  // out of view
    if (!cover) cover.emplace(workspace);
    if (::mount(cover->path().c_str(), path.c_str(), nullptr, MS_BIND, nullptr) != 0) {
      reaper::throw_sys("cover the host's socket " + path.string());
    }
    ++covered;
  }
  return covered;
}

}  // namespace reapcheck
