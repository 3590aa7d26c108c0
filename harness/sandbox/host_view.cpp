#include "harness/sandbox/host_view.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <unistd.h>

#include <algorithm>
#include <array>

#include "reaper/os/cgroup_fs.h"
#include "reaper/os/sys_error.h"
#include "reaper/os/unique_fd.h"

namespace reapcheck {
namespace {

namespace fs = std::filesystem;
using reaper::UniqueFd;

// Where hosts keep sockets and world-writable files.
constexpr std::array<const char*, 4> kPrivate = {"/tmp", "/var/tmp", "/dev/shm", "/run"};

void check(int rc, const std::string& step) {
  if (rc != 0) reaper::throw_sys(step);
}

bool is_below(const fs::path& path, const fs::path& dir) {
  const auto [d, p] = std::mismatch(dir.begin(), dir.end(), path.begin(), path.end());
  return d == dir.end();
}

bool hidden_by_private(const fs::path& path) {
  for (const char* dir : kPrivate) {
    if (is_below(path, dir)) return true;
  }
  return false;
}

// A host subtree, detached, to be put back after what covers it is mounted.
struct Kept {
  fs::path path;
  UniqueFd tree;
  bool writable;
};

Kept keep(const fs::path& path, bool writable) {
  UniqueFd tree(
      ::open_tree(AT_FDCWD, path.c_str(), OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE));
  if (!tree) reaper::throw_sys("take " + path.string() + " to keep it visible");
  return {path, std::move(tree), writable};
}

void put_back(const Kept& kept) {
  std::error_code ec;
  fs::create_directories(kept.path, ec);  // inside a fresh tmpfs, or already there
  check(::move_mount(kept.tree.get(), "", AT_FDCWD, kept.path.c_str(), MOVE_MOUNT_F_EMPTY_PATH),
        "put " + kept.path.string() + " back");
}

void set_attr(const fs::path& path, unsigned flags, mount_attr attr, const std::string& step) {
  check(::mount_setattr(AT_FDCWD, path.c_str(), flags, &attr, sizeof attr), step);
}

void make_writable(const fs::path& path, unsigned flags = 0) {
  set_attr(path, flags, mount_attr{0, MOUNT_ATTR_RDONLY, 0, 0},
           "make " + path.string() + " writable again");
}

}  // namespace

void prepare_host_view(const HostView& view) {
  check(::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr), "make / private");

  std::vector<Kept> kept;
  for (const fs::path& p : view.visible) {
    if (hidden_by_private(p) && fs::is_directory(p)) kept.push_back(keep(p, false));
  }
  for (const fs::path& p : view.shared) kept.push_back(keep(p, true));

  std::vector<fs::path> privates;
  for (const char* dir : kPrivate) {
    if (fs::is_symlink(dir) || !fs::is_directory(dir)) continue;  // /var/run -> /run and the like
    const char* mode = std::string_view(dir) == "/run" ? "mode=0755" : "mode=1777";
    check(::mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, mode),
          std::string("mount a private tmpfs on ") + dir);
    privates.emplace_back(dir);
  }
  for (const Kept& k : kept) put_back(k);

  if (!view.scratch.empty()) {
    fs::create_directories(view.scratch);
    const std::string opts =
        "mode=0755,uid=" + std::to_string(view.ids.uid) + ",gid=" + std::to_string(view.ids.gid);
    check(::mount("tmpfs", view.scratch.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, opts.c_str()),
          "mount the scratch tmpfs on " + view.scratch.string());
  }
  const std::string cgroup_mount = view.cgroup.empty() ? "" : reaper::cgroup2_mount();
  if (!cgroup_mount.empty()) {
    check(::mount(view.cgroup.c_str(), cgroup_mount.c_str(), nullptr, MS_BIND, nullptr),
          "show cgroup " + view.cgroup + " in place of " + cgroup_mount);
  }

  set_attr("/", AT_RECURSIVE, mount_attr{MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID, 0, 0, 0},
           "make the host's file systems read-only");
  for (const fs::path& p : privates) make_writable(p);
  for (const Kept& k : kept) {
    if (k.writable) make_writable(k.path, AT_RECURSIVE);
  }
  if (!view.scratch.empty()) make_writable(view.scratch);
  if (!cgroup_mount.empty()) make_writable(cgroup_mount);
  // The warden writes PID 1's id maps through the host's /proc; the case's /proc covers it before
  // the case runs (case_proc.h).
  make_writable("/proc", AT_RECURSIVE);
}

}  // namespace reapcheck
