#include "harness/sandbox/project_view.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reaper/os/clone.h"
#include "reaper/os/sys_error.h"
#include "reaper/os/write_file.h"

namespace reapcheck {
namespace {

namespace fs = std::filesystem;
using reaper::UniqueFd;

void check(int rc, const std::string& step) {
  if (rc != 0) reaper::throw_sys(step);
}

// One id map line: `inside` (the id on disk) → `outside` (the id the case sees owning it).
std::string fmt_map(unsigned inside, unsigned outside) {
  return std::to_string(inside) + " " + std::to_string(outside) + " 1\n";
}

// A user namespace whose only mapping is `owner` (uid and gid) → the sandbox's root, for an
// idmapped mount: held by its fd once its one process is gone.
UniqueFd owner_as_sandbox_root(const struct stat& owner, SandboxIds ids) {
  reaper::Pipe hold = reaper::make_pipe();
  const pid_t child = reaper::clone_child(CLONE_NEWUSER);
  if (child < 0) reaper::throw_sys("clone a user namespace for the project's idmap");
  if (child == 0) {
    hold.write.reset();
    char c = 0;
    [[maybe_unused]] const ssize_t n = ::read(hold.read.get(), &c, 1);  // until the parent is done
    ::_exit(0);
  }
  hold.read.reset();
  const std::string proc = "/proc/" + std::to_string(child);
  UniqueFd ns;
  try {
    reaper::write_file(proc + "/uid_map", fmt_map(owner.st_uid, ids.uid));
    reaper::write_file(proc + "/gid_map", fmt_map(owner.st_gid, ids.gid));
    ns = UniqueFd(::open((proc + "/ns/user").c_str(), O_RDONLY | O_CLOEXEC));
    if (!ns) reaper::throw_sys("open the project's idmap namespace");
  } catch (...) {
    hold.write.reset();
    ::waitpid(child, nullptr, 0);
    throw;
  }
  hold.write.reset();
  ::waitpid(child, nullptr, 0);
  return ns;
}

}  // namespace

ProjectLayer take_project(const fs::path& dir, SandboxIds ids) {
  UniqueFd tree(::open_tree(AT_FDCWD, dir.c_str(), OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC));
  if (!tree) reaper::throw_sys("take the project folder " + dir.string());
  mount_attr attr{MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID, 0, 0, 0};
  UniqueFd ns;
  if (ids.uid != 0) {  // as root: the case's root is someone else's uid on the host
    struct stat st {};
    check(::stat(dir.c_str(), &st), "stat " + dir.string());
    ns = owner_as_sandbox_root(st, ids);
    attr.attr_set |= MOUNT_ATTR_IDMAP;
    attr.userns_fd = static_cast<__u64>(ns.get());
  }
  check(::mount_setattr(tree.get(), "", AT_EMPTY_PATH, &attr, sizeof attr),
        "make the project folder " + dir.string() + " read-only" +
            (ids.uid != 0 ? " and idmapped" : ""));
  return {dir, std::move(tree)};
}

void lay_project(const ProjectLayer& project, const fs::path& layers, SandboxIds ids,
                 bool rootless) {
  const fs::path lower = layers / "lower";
  const fs::path upper = layers / "upper";
  const fs::path work = layers / "work";
  for (const fs::path& d : {lower, upper, work}) {
    fs::create_directories(d);
    check(::chown(d.c_str(), ids.uid, ids.gid), "chown " + d.string());
  }
  check(::move_mount(project.lower.get(), "", AT_FDCWD, lower.c_str(), MOVE_MOUNT_F_EMPTY_PATH),
        "put the project folder's lower layer in place");
  // Inside a private tmpfs (a project under /tmp) its path must be made; elsewhere it exists.
  fs::create_directories(project.dir);
  const std::string options = "lowerdir=" + lower.string() + ",upperdir=" + upper.string() +
                              ",workdir=" + work.string() + (rootless ? ",userxattr" : "");
  check(::mount("overlay", project.dir.c_str(), "overlay", MS_NOSUID, options.c_str()),
        "lay a copy-on-write layer over " + project.dir.string());
}

}  // namespace reapcheck
