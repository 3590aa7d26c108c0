#include "harness/sandbox/project_view.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string_view>

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

// The calling process works in `dir` for the scope's life, then where it was.
class WorkingDirectory {
 public:
  explicit WorkingDirectory(const fs::path& dir)
      : was_(::open(".", O_PATH | O_DIRECTORY | O_CLOEXEC)) {
    if (!was_) reaper::throw_sys("open the working directory");
    check(::chdir(dir.c_str()), "enter " + dir.string());
  }
  ~WorkingDirectory() { (void)!::fchdir(was_.get()); }  // an open folder: it cannot fail
  WorkingDirectory(const WorkingDirectory&) = delete;
  WorkingDirectory& operator=(const WorkingDirectory&) = delete;

 private:
  UniqueFd was_;
};

// The kernel's own file systems: what they hold is the kernel's state, not files of a project.
constexpr std::array<std::string_view, 19> kKernelFileSystems = {
    "proc",    "sysfs",     "cgroup",      "cgroup2", "devtmpfs",  "devpts", "mqueue",
    "debugfs", "tracefs",   "securityfs",  "bpf",     "configfs",  "pstore", "efivarfs",
    "fusectl", "hugetlbfs", "binfmt_misc", "nsfs",    "rpc_pipefs"};

// The type of the file system `dir` lies on (mountinfo's, by the mount's id: "ext4", "proc");
// empty when it cannot be told.
std::string file_system_of(const fs::path& dir) {
  struct statx st {};
  if (::statx(AT_FDCWD, dir.c_str(), 0, STATX_MNT_ID, &st) != 0 || !(st.stx_mask & STATX_MNT_ID)) {
    return {};
  }
  std::ifstream mountinfo("/proc/self/mountinfo");
  for (std::string line; std::getline(mountinfo, line);) {
    std::istringstream fields(line);
    std::uint64_t id = 0;
    fields >> id;
    const size_t dash = line.find(" - ");
    if (id != st.stx_mnt_id || dash == std::string::npos) continue;
    std::istringstream after(line.substr(dash + 3));
    std::string type;
    after >> type;
    return type;
  }
  return {};
}

}  // namespace

std::string project_refusal(const fs::path& dir) {
  const std::string type = file_system_of(dir);
  if (std::find(kKernelFileSystems.begin(), kKernelFileSystems.end(), type) ==
      kKernelFileSystems.end()) {
    return {};
  }
  return "the agent's folder " + dir.string() + " is on " + type +
         ", one of the kernel's own file systems, where no copy-on-write layer can be laid: give "
         "a folder of the project's own";
}

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
  // The layers by their names in `layers`, the working directory meanwhile: overlayfs splits its
  // options at ',' and ':' and takes '\\' as an escape, and `layers` lies in TMPDIR, which may
  // hold any of them. Plain names need no escaping, on every kernel.
  const WorkingDirectory in_layers(layers);
  const std::string options =
      std::string("lowerdir=lower,upperdir=upper,workdir=work") + (rootless ? ",userxattr" : "");
  check(::mount("overlay", project.dir.c_str(), "overlay", MS_NOSUID, options.c_str()),
        "lay a copy-on-write layer over " + project.dir.string());
}

}  // namespace reapcheck
