#include "harness/sandbox/host_view.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>

#include "harness/sandbox/host_sockets.h"
#include "harness/sandbox/project_view.h"
#include "harness/support/layout.h"
#include "reaper/os/cgroup_fs.h"
#include "reaper/os/read_file.h"
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

// One of the private folders itself.
bool is_private(const fs::path& path) {
  return std::find(kPrivate.begin(), kPrivate.end(), path) != kPrivate.end();
}

bool hidden_by_private(const fs::path& path) {
  for (const char* dir : kPrivate) {
    if (is_below(path, dir)) return true;
  }
  return false;
}

// Whether the case's id, an unprivileged one, may pass through `dir` (a checkout in a 0700
// `mktemp -d` or in root's home may not).
bool others_may_enter(const fs::path& dir) {
  struct stat st {};
  return ::stat(dir.c_str(), &st) == 0 && (st.st_mode & S_IXOTH) != 0;
}

// What to keep of `path` so that the case can reach it: the folder, or, where the case may not
// enter it, the folders in it that it may.
std::vector<fs::path> reachable_parts(const fs::path& path) {
  if (others_may_enter(path)) return {path};
  std::vector<fs::path> parts;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    if (entry.is_directory(ec) && others_may_enter(entry.path())) parts.push_back(entry.path());
  }
  return parts;
}

// The topmost folder above `path` that the case may not enter, or empty: it is covered by an
// empty tmpfs, and `path` put back inside, as the private folders are.
fs::path closed_ancestor(const fs::path& path) {
  return path.has_parent_path() && path != path.root_path() ? closed_folder(path.parent_path())
                                                            : fs::path();
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

// ",size=N" for a tmpfs of `bytes`; nothing for 0 (the kernel's default).
std::string size_option(std::uint64_t bytes) {
  return bytes == 0 ? "" : ",size=" + std::to_string(bytes);
}

// The host's /tmp, /var/tmp, /dev/shm and /run replaced by empty tmpfs of `size` bytes each (0:
// the kernel's default): those that are folders here.
std::vector<fs::path> mount_privates(std::uint64_t size) {
  std::vector<fs::path> privates;
  for (const char* dir : kPrivate) {
    if (fs::is_symlink(dir) || !fs::is_directory(dir)) continue;  // /var/run -> /run and the like
    const std::string mode = std::string_view(dir) == "/run" ? "mode=0755" : "mode=1777";
    check(::mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, (mode + size_option(size)).c_str()),
          std::string("mount a private tmpfs on ") + dir);
    privates.emplace_back(dir);
  }
  return privates;
}

void make_writable(const fs::path& path, unsigned flags = 0) {
  set_attr(path, flags, mount_attr{0, MOUNT_ATTR_RDONLY, 0, 0},
           "make " + path.string() + " writable again");
}

}  // namespace

fs::path closed_folder(const fs::path& path) {
  fs::path prefix;
  for (const fs::path& part : path) {
    prefix /= part;
    if (!others_may_enter(prefix)) return prefix;
  }
  return {};
}

namespace {

// The folder just below `closed` on the way to `dir` (which lies below it).
fs::path put_back_point(const fs::path& closed, const fs::path& dir) {
  const fs::path rest = dir.lexically_relative(closed);
  return rest.empty() || *rest.begin() == "." ? fs::path() : closed / *rest.begin();
}

}  // namespace

std::vector<fs::path> path_put_back(const std::string& search_path) {
  std::vector<fs::path> out;
  for (const fs::path& dir : existing_directories(search_path)) {
    const fs::path point = put_back_point(closed_folder(dir), dir);
    if (!point.empty() && std::find(out.begin(), out.end(), point) == out.end()) {
      out.push_back(point);
    }
  }
  return out;
}

fs::path closed_after_put_back(const fs::path& dir) {
  fs::path closed = closed_folder(dir);
  const fs::path point = put_back_point(closed, dir);
  if (point.empty()) return closed;
  fs::path prefix = point;
  if (!others_may_enter(prefix)) return prefix;
  for (const fs::path& part : dir.lexically_relative(point)) {
    prefix /= part;
    if (!others_may_enter(prefix)) return prefix;
  }
  return {};
}

std::string host_view_refusal(const fs::path& root) {
  if (others_may_enter(root)) return {};
  return root.string() +
         " lets only its owner in (no search permission for others): the case, which runs as an "
         "id of its own, could reach no file; give it that permission (chmod o+x " +
         root.string() + ")";
}

void prepare_host_view(const HostView& view) {
  if (const std::string why = host_view_refusal(); !why.empty()) throw std::runtime_error(why);
  check(::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr), "make / private");

  // Taken first: a project under /tmp is hidden once the private tmpfs covers it.
  std::vector<ProjectLayer> projects;
  for (const fs::path& dir : view.projects) projects.push_back(take_project(dir, view.ids));

  std::vector<Kept> kept;
  std::vector<fs::path> covers;  // closed folders above what the case reads
  for (const fs::path& p : view.visible) {
    if (!fs::is_directory(p)) continue;
    for (const fs::path& part : reachable_parts(p)) {
      // A private folder itself (the working directory of a run started in /tmp) stays the
      // case's own, empty: put back, the host's folder would cover the private tmpfs, and be
      // made writable in its place below.
      if (is_private(part)) continue;
      const fs::path closed = closed_ancestor(part);
      const bool covered = !closed.empty() && !hidden_by_private(closed);
      if (covered && std::find(covers.begin(), covers.end(), closed) == covers.end()) {
        covers.push_back(closed);
      }
      if (covered || hidden_by_private(part) || part != p) kept.push_back(keep(part, false));
    }
  }
  for (const fs::path& p : view.shared) kept.push_back(keep(p, true));

  const std::vector<fs::path> privates = mount_privates(view.tmpfs_size);
  for (const fs::path& dir : covers) {
    check(::mount("tmpfs", dir.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755"),
          "cover " + dir.string() + ", which the case's id may not enter");
  }
  for (const Kept& k : kept) put_back(k);

  if (!view.scratch.empty()) {
    fs::create_directories(view.scratch);
    const std::string opts = "mode=0755,uid=" + std::to_string(view.ids.uid) +
                             ",gid=" + std::to_string(view.ids.gid) + size_option(view.tmpfs_size);
    check(::mount("tmpfs", view.scratch.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, opts.c_str()),
          "mount the scratch tmpfs on " + view.scratch.string());
  }
  for (size_t i = 0; i < projects.size(); ++i) {
    lay_project(projects[i], view.scratch / (".project-" + std::to_string(i)), view.ids,
                view.ids.uid == 0);
  }
  const std::string cgroup_mount = view.cgroup.empty() ? "" : reaper::cgroup2_mount();
  if (!cgroup_mount.empty()) {
    check(::mount(view.cgroup.c_str(), cgroup_mount.c_str(), nullptr, MS_BIND, nullptr),
          "show cgroup " + view.cgroup + " in place of " + cgroup_mount);
  }
  // Last: a socket in a folder put back, or in a project's layer, is in view only now.
  if (!view.scratch.empty() || !privates.empty()) {
    cover_sockets(bound_socket_paths(reaper::read_file("/proc/net/unix")),
                  view.scratch.empty() ? privates.front() : view.scratch);
  }

  set_attr("/", AT_RECURSIVE, mount_attr{MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID, 0, 0, 0},
           "make the host's file systems read-only");
  for (const fs::path& p : privates) make_writable(p);
  for (const Kept& k : kept) {
    if (k.writable) make_writable(k.path, AT_RECURSIVE);
  }
  if (!view.scratch.empty()) make_writable(view.scratch);
  // Each overlay only: its lower layer, the host's folder, stays read-only below it.
  for (const ProjectLayer& p : projects) make_writable(p.dir);
  if (!cgroup_mount.empty()) make_writable(cgroup_mount);
  // The warden writes PID 1's id maps through the host's /proc; the case's /proc covers it before
  // the case runs (case_proc.h).
  make_writable("/proc", AT_RECURSIVE);
}

}  // namespace reapcheck
