// What the sandbox keeps from the host as root (issue 17): an unprivileged id, a read-only host,
// private temporary directories, a /proc that cannot be taken away, a cgroup of its own. Run, like
// the other sandbox tests, inside `unshare --pid --fork --mount-proc`.
#include <errno.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "harness/sandbox/case_cgroup.h"
#include "harness/sandbox/cgroup_area.h"
#include "harness/sandbox/host_view.h"
#include "harness/sandbox/pids_group.h"
#include "harness/sandbox/sandbox.h"
#include "harness/sandbox/sandbox_ids.h"
#include "harness/support/layout.h"
#include "reaper/os/cgroup_fs.h"
#include "reaper/os/pidfd.h"
#include "reaper/os/read_file.h"

namespace reapcheck {
namespace {

namespace fs = std::filesystem;

SandboxOptions options() {
  SandboxOptions o;
  o.deadline = std::chrono::seconds(10);
  return o;
}

std::string run(const std::function<std::string()>& body, const SandboxOptions& o = options()) {
  auto out = run_in_sandbox(body, o);
  EXPECT_EQ(out.status, SandboxOutcome::Status::finished) << out.output;
  return out.output;
}

// errno of `op` in a child (so PID 1 keeps its own namespaces), or 0.
int in_child(const std::function<int()>& op) {
  const pid_t p = ::fork();
  if (p == 0) ::_exit(op() == 0 ? 0 : errno);
  int status = 0;
  ::waitpid(p, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// A root that lets only its owner in would leave the case, which runs as an id of its own, no
// file to reach, and the root cannot be covered as a closed folder below it is: refused with what
// to do, before any case (here on a folder standing in for /).
TEST(Confinement, ARootClosedToOthersIsRefusedWithWhatToDo) {
  char dir_template[] = "/tmp/reapcheck-root-XXXXXX";
  ASSERT_NE(::mkdtemp(dir_template), nullptr);
  const fs::path root = dir_template;
  ASSERT_EQ(::chmod(root.c_str(), 0700), 0);
  const std::string why = host_view_refusal(root);
  EXPECT_NE(why.find("lets only its owner in"), std::string::npos) << why;
  EXPECT_NE(why.find("chmod o+x " + root.string()), std::string::npos) << why;
  ASSERT_EQ(::chmod(root.c_str(), 0711), 0);
  EXPECT_EQ(host_view_refusal(root), "");
  fs::remove(root);
  EXPECT_EQ(host_view_refusal(), "");  // this host's own /
}

TEST(Confinement, RootIsAnUnprivilegedHostId) {
  if (::geteuid() != 0) GTEST_SKIP() << "rootless: root maps to the invoking user";
  const std::string map = run([] {
    std::istringstream in(reaper::read_file("/proc/self/uid_map"));
    long inside = -1, outside = -1, count = -1;
    in >> inside >> outside >> count;
    return std::to_string(::getuid()) + " " + std::to_string(inside) + " " +
           std::to_string(outside) + " " + std::to_string(count);
  });
  EXPECT_EQ(map, "0 0 " + std::to_string(kSandboxHostId) + " 1");
}

// A System V segment of the host's is out of the case's sight, and one the case makes is gone
// with it: the case has an IPC namespace of its own (issue 53).
TEST(Confinement, SystemVObjectsAreTheCasesOwnAndEndWithIt) {
  const int host = ::shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0666);
  ASSERT_GE(host, 0);
  const std::string seen = run([host] {
    const int made = ::shmget(IPC_PRIVATE, 1 << 20, IPC_CREAT | 0600);
    shmid_ds ds{};
    return std::to_string(::shmctl(host, IPC_STAT, &ds) == 0) + " " + std::to_string(made);
  });
  ::shmctl(host, IPC_RMID, nullptr);
  std::istringstream in(seen);
  int host_visible = -1;
  int made = -1;
  in >> host_visible >> made;
  EXPECT_EQ(host_visible, 0) << "the case saw the host's segment " << host;
  ASSERT_GE(made, 0) << seen;
  shmid_ds ds{};
  // Ids are per namespace: the case's may name a host segment made meanwhile, never its own.
  if (::shmctl(made, IPC_STAT, &ds) == 0) {
    EXPECT_NE(ds.shm_segsz, 1u << 20);
  }
}

TEST(Confinement, HostFilesAreReadOnlyAndTemporaryDirectoriesPrivate) {
  char host_file[] = "/tmp/reapcheck-confinement-XXXXXX";
  const int fd = ::mkstemp(host_file);
  ASSERT_GE(fd, 0);
  ::close(fd);
  ScratchDir scratch(Layout::of_running_binary().temp);
  SandboxOptions o = options();
  o.scratch = scratch.path();
  const std::string seen = run(
      [&] {
        std::string s = fs::exists(host_file) ? "host-tmp-visible" : "host-tmp-hidden";
        s += std::ofstream("/tmp/inside") ? " tmp-writable" : " tmp-unwritable";
        s += ::mkdir("/var/lib/reapcheck-escape", 0700) != 0 && errno == EROFS ? " host-ro"
                                                                               : " host-rw";
        s += std::ofstream(scratch.path() / "file") ? " scratch-writable" : " scratch-unwritable";
        return s;
      },
      o);
  EXPECT_EQ(seen, "host-tmp-hidden tmp-writable host-ro scratch-writable");
  EXPECT_FALSE(fs::exists("/tmp/inside"));
  EXPECT_FALSE(fs::exists(scratch.path() / "file")) << "the scratch is a tmpfs of the case's";
  ::unlink(host_file);
}

// A run started in /tmp (or /var/tmp, /dev/shm) sees its working directory (harness_paths()):
// that folder stays the case's own tmpfs. Put back, the host's folder covered the private one
// and was made writable in its place: the case wrote the host's /tmp, and each case's socket
// folder (/tmp/reapcheck-sockets-*) was left there.
TEST(Confinement, ATemporaryDirectoryStaysPrivateWhenTheRunStartsInIt) {
  const std::vector<fs::path> dirs = {"/tmp", "/var/tmp", "/dev/shm"};
  const std::string name = "reapcheck-started-in-" + std::to_string(::getpid());
  std::vector<fs::path> host_files;
  for (const fs::path& dir : dirs) {
    if (!fs::is_directory(dir) || fs::is_symlink(dir)) continue;
    host_files.push_back(dir / (name + "-host"));
    std::ofstream(host_files.back()) << "host";
  }
  ScratchDir scratch(Layout::of_running_binary().temp);
  SandboxOptions o = options();
  o.scratch = scratch.path();
  o.visible = dirs;
  const std::string seen = run(
      [&] {
        std::string s;
        for (const fs::path& host : host_files) {
          s += host.parent_path().string() + (fs::exists(host) ? ":host-visible" : ":host-hidden");
          s += std::ofstream(host.parent_path() / (name + "-case")) ? ",writable " : ",unwritable ";
        }
        return s;
      },
      o);
  std::string want;
  for (const fs::path& host : host_files) {
    want += host.parent_path().string() + ":host-hidden,writable ";
  }
  EXPECT_EQ(seen, want);
  for (const fs::path& host : host_files) {
    EXPECT_FALSE(fs::exists(host.parent_path() / (name + "-case"))) << "written on the host";
    std::error_code ec;
    fs::remove(host.parent_path() / (name + "-case"), ec);
    fs::remove(host, ec);
  }
}

// A project folder (reproduce -- CMD) is seen at its own path, writable as its owner could, and
// nothing written there reaches the host. Without `projects` the same body cannot see it: the
// folder is under /tmp, which the case sees as a private tmpfs.
TEST(Confinement, AProjectFolderIsWritableInsideAndUnchangedOnTheHost) {
  char dir[] = "/tmp/reapcheck-project-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);  // 0700, as mktemp -d makes it
  const fs::path project = dir;
  std::ofstream(project / "a.txt") << "host";
  ScratchDir scratch(Layout::of_running_binary().temp);
  SandboxOptions o = options();
  o.scratch = scratch.path();
  auto body = [&] {
    std::string s = "read:" + reaper::read_file((project / "a.txt").string());
    std::ofstream(project / "a.txt", std::ios::app) << " case";
    std::error_code ec;
    fs::create_directories(project / "node_modules" / ".vite", ec);
    s += " wrote:" + reaper::read_file((project / "a.txt").string());
    s += fs::is_directory(project / "node_modules" / ".vite") ? " cache" : " no-cache";
    return s;
  };
  // Without the layer the host's file is out of sight (the case's /tmp is its own tmpfs).
  EXPECT_EQ(run(body, o), "read: wrote: cache") << "without a copy-on-write layer";
  o.projects = {project};
  EXPECT_EQ(run(body, o), "read:host wrote:host case cache");
  EXPECT_EQ(reaper::read_file((project / "a.txt").string()), "host");
  EXPECT_FALSE(fs::exists(project / "node_modules"));
  EXPECT_TRUE(fs::is_empty(scratch.path())) << "the layers live in the case's scratch tmpfs";
  fs::remove_all(project);
}

TEST(Confinement, ProcCannotBeUnmountedToShowTheHosts) {
  const std::string errors = run([] {
    const int here = in_child([] { return ::umount2("/proc", MNT_DETACH); });
    const int own_namespace =
        in_child([] { return ::unshare(CLONE_NEWNS) != 0 ? -1 : ::umount2("/proc", MNT_DETACH); });
    return std::to_string(here) + " " + std::to_string(own_namespace);
  });
  // EPERM: no privilege over the warden's mount namespace; EINVAL: a copied mount is locked.
  EXPECT_EQ(errors, std::to_string(EPERM) + " " + std::to_string(EINVAL));
}

TEST(Confinement, TheCaseCgroupIsDelegatedAndTheHostsOutOfReach) {
  CgroupArea area;
  if (area.path().empty()) GTEST_SKIP() << "no writable cgroup v2 here";
  SandboxOptions o = options();
  o.cgroup_area = area.path();
  const std::string seen = run(
      [&] {
        const std::string home = reaper::cgroup_home();
        std::string s = home == reaper::cgroup2_mount() ? "root" : "not-root:" + home;
        s += fs::exists(area.path()) ? " area-visible" : " area-hidden";
        s += ::mkdir((home + "/sub").c_str(), 0755) == 0 ? " mkdir" : " no-mkdir";
        std::ofstream procs(home + "/sub/cgroup.procs");
        procs << "0\n";
        procs.close();
        s += procs && reaper::cgroup_of(::getpid()) == home + "/sub" ? " moved" : " not-moved";
        return s;
      },
      o);
  EXPECT_EQ(seen, "root area-hidden mkdir moved");
}

// The process's group in the v1 pids hierarchy.
std::string own_pids_group() {
  std::istringstream lines(reaper::read_file("/proc/self/cgroup"));
  for (std::string line; std::getline(lines, line);) {
    if (line.find(":pids:") != std::string::npos) return line.substr(line.find(":pids:") + 6);
  }
  return {};
}

// Each of the harness's reapcheck-case-* groups in `folder` that holds a process of this PID
// namespace, while a sandbox's body runs: its pids.max, whether `harness` is in it, and whether
// anything else is (the sandbox's).
std::string groups_holding_a_case(const std::string& folder, pid_t harness) {
  // The observer is a process, not a thread: the sandbox is cloned from this process, and a
  // clone from a multi-threaded one can inherit a lock another thread held.
  reaper::Pipe running = reaper::make_pipe();
  reaper::Pipe checked = reaper::make_pipe();
  reaper::Pipe result = reaper::make_pipe();
  const pid_t observer = ::fork();
  if (observer == 0) {
    char c;
    if (::read(running.read.get(), &c, 1) != 1) ::_exit(1);
    std::string seen;
    for (const auto& group : fs::directory_iterator(folder)) {
      if (group.path().filename().string().rfind("reapcheck-case-", 0) != 0) continue;
      if (reaper::read_file(group.path() / "pids.current") == "0\n") continue;
      std::istringstream procs(reaper::read_file(group.path() / "cgroup.procs"));
      bool with_harness = false, with_others = false;
      for (pid_t pid = 0; procs >> pid;) {
        if (pid != ::getpid()) (pid == harness ? with_harness : with_others) = true;
      }
      if (!with_harness && !with_others) continue;  // another run's, out of this PID namespace
      std::istringstream max(reaper::read_file(group.path() / "pids.max"));
      std::string limit;
      max >> limit;
      seen += limit + (with_harness ? " with the harness" : "") +
              (with_others ? " with the case" : "") + ";";
    }
    (void)!::write(result.write.get(), seen.data(), seen.size());
    (void)!::write(checked.write.get(), "c", 1);
    ::_exit(0);
  }
  checked.write.reset();
  result.write.reset();
  run([&] {
    (void)!::write(running.write.get(), "r", 1);
    char c;
    return std::to_string(::read(checked.read.get(), &c, 1));  // the observer has looked
  });
  int status = 0;
  ::waitpid(observer, &status, 0);
  char buf[256];
  const ssize_t n = ::read(result.read.get(), buf, sizeof buf);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
}

// Where pids is a cgroup v1 controller only (as here), a v1 group bounds the case, with pids.max
// set (the case itself may not read the group): one of its own, or, inside a PidsBound (a case
// worker's), the worker's, which no case pays to join — and which holds no other case.
TEST(Confinement, ProcessesAreBoundedWherePidsIsACgroupV1Controller) {
  const std::string v1 = "/sys/fs/cgroup/pids";
  if (::geteuid() != 0 || !fs::exists(v1 + "/cgroup.procs")) GTEST_SKIP() << "no v1 pids here";
  const std::string own = own_pids_group();
  EXPECT_EQ(groups_holding_a_case(v1 + own, ::getpid()), "8192 with the case;");
  std::string bound_group;
  {
    const PidsBound bound(kCasePidsMax);
    bound_group = own_pids_group();
    EXPECT_NE(bound_group, own);
    EXPECT_EQ(groups_holding_a_case(v1 + own, ::getpid()), "8192 with the harness with the case;");
  }
  // Back where it was, and the group gone.
  EXPECT_EQ(own_pids_group(), own);
  EXPECT_FALSE(fs::exists(v1 + bound_group));
}

}  // namespace
}  // namespace reapcheck
