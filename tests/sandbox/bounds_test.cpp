// What a case may take of the host and reach there (issue 53): its memory, tmpfs contents
// included, is bounded; a project folder is laid whatever bytes TMPDIR holds; a host Unix socket
// outside the private folders accepts no connection from it. Run, like the other sandbox tests,
// inside `unshare --pid --fork --mount-proc`.
#include <errno.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "harness/sandbox/cgroup_area.h"
#include "harness/sandbox/cgroup_v1.h"
#include "harness/sandbox/host_sockets.h"
#include "harness/sandbox/host_view.h"
#include "harness/sandbox/memory_bound.h"
#include "harness/sandbox/sandbox.h"
#include "harness/sandbox/sandbox_ids.h"
#include "harness/support/layout.h"
#include "reaper/os/read_file.h"
#include "reaper/os/unique_fd.h"

namespace reapcheck {
namespace {

namespace fs = std::filesystem;
using reaper::UniqueFd;

constexpr std::uint64_t kMiB = std::uint64_t{1024} * 1024;

SandboxOptions options() {
  SandboxOptions o;
  o.deadline = std::chrono::seconds(20);
  o.visible = Layout::of_running_binary().harness_paths();
  return o;
}

// A folder made with mkdtemp from `pattern` (its XXXXXX filled in), removed with what it holds.
class TempDir {
 public:
  explicit TempDir(std::string pattern) : path_(std::move(pattern)) {
    std::string p = path_.string();
    if (::mkdtemp(p.data()) == nullptr) throw std::runtime_error("mkdtemp " + p);
    path_ = p;
    ::chmod(path_.c_str(), 0755);  // only the sandbox, not permissions, keeps the case out
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// errno of a connect() to the Unix socket at `path`; 0 when it connected.
int connect_errno(const fs::path& path) {
  const UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  return ::connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0 ? 0
                                                                                         : errno;
}

// The size of the file system at `path`, in bytes.
std::uint64_t size_of(const fs::path& path) {
  struct statvfs st {};
  if (::statvfs(path.c_str(), &st) != 0) return 0;
  return static_cast<std::uint64_t>(st.f_blocks) * st.f_frsize;
}

// Where a memory cgroup can bound the case here: the cgroup v2 controller, or the v1 hierarchy.
bool memory_cgroup_here(const CgroupArea& area) {
  if (!area.path().empty() &&
      (" " + reaper::read_file(area.path() + "/cgroup.controllers")).find(" memory") !=
          std::string::npos) {
    return true;
  }
  return ::geteuid() == 0 && !v1_mount("memory").empty();
}

// The groups this process's runs made in the v1 memory hierarchy (reapcheck-memory-<pid>-*).
int own_memory_groups() {
  int n = 0;
  const std::string mine = "reapcheck-memory-" + std::to_string(::getpid()) + "-";
  for (const HostItem& item : MemoryGroup::list()) {
    n += fs::path(item.path).filename().string().rfind(mine, 0) == 0 ? 1 : 0;
  }
  return n;
}

// Every tmpfs the case may write is no larger than its memory bound, which is a quarter of the
// host's memory unless told: where no memory cgroup can be made, that is what still holds.
TEST(Bounds, EachTmpfsTheCaseWritesIsNoLargerThanItsMemoryBound) {
  ScratchDir scratch(Layout::of_running_binary().temp);
  SandboxOptions o = options();
  o.scratch = scratch.path();
  const auto sizes = [&] {
    return std::to_string(size_of("/tmp")) + " " + std::to_string(size_of("/dev/shm")) + " " +
           std::to_string(size_of(scratch_inside(scratch.path())));
  };
  auto out = run_in_sandbox(sizes, o);
  ASSERT_EQ(out.status, SandboxOutcome::Status::finished) << out.output;
  const std::uint64_t quarter = default_memory_max();
  std::istringstream seen(out.output);
  for (std::uint64_t size = 0; seen >> size;) {
    EXPECT_GE(size, quarter) << out.output;
    EXPECT_LT(size, quarter + 4096) << "a quarter of the host's memory, rounded to a page";
  }
  o.memory_max = 96 * kMiB;
  out = run_in_sandbox(sizes, o);
  ASSERT_EQ(out.status, SandboxOutcome::Status::finished) << out.output;
  const std::string bound = std::to_string(96 * kMiB);
  EXPECT_EQ(out.output, bound + " " + bound + " " + bound);
}

// A case that fills its /tmp (a tmpfs, whose pages the kernel charges to the case) past its bound
// is ended, and says why; nothing of it is on the host, and no group of its is left.
TEST(Bounds, ACaseThatFillsItsTmpfsPastItsBoundEndsSayingSo) {
  CgroupArea area;
  if (!memory_cgroup_here(area)) GTEST_SKIP() << "no memory cgroup here: only tmpfs sizes bound";
  const int groups_before = own_memory_groups();
  ScratchDir scratch(Layout::of_running_binary().temp);
  SandboxOptions o = options();
  o.scratch = scratch.path();
  o.cgroup_area = area.path();
  o.memory_max = 64 * kMiB;
  const auto out = run_in_sandbox(
      [] {
        std::ofstream fill("/tmp/reapcheck-fill");
        const std::string mib(kMiB, 'x');
        int written = 0;
        for (; written < 200 && fill.write(mib.data(), static_cast<std::streamsize>(mib.size()));
             ++written) {
        }
        return "wrote " + std::to_string(written) + " MiB";
      },
      o);
  EXPECT_EQ(out.status, SandboxOutcome::Status::crashed) << out.output;
  EXPECT_NE(out.output.find("the case went over its memory bound, 64 MiB"), std::string::npos)
      << out.output;
  EXPECT_NE(out.output.find("OOM killer"), std::string::npos) << out.output;
  EXPECT_FALSE(fs::exists("/tmp/reapcheck-fill"));
  EXPECT_EQ(own_memory_groups(), groups_before) << "a v1 memory group was left";
}

// The copy-on-write layer of a project, whose layers live in the case's scratch, is laid whatever
// TMPDIR holds: overlayfs takes ',' and ':' as separators and '\' as an escape in its options,
// where the layers were named by their paths (and such a scratch is now seen elsewhere).
TEST(Bounds, AProjectIsLaidWhereTmpdirHoldsCommasColonsAndBackslashes) {
  TempDir project("/var/tmp/reapcheck-project-XXXXXX");
  std::ofstream(project.path() / "a.txt") << "host";
  for (const std::string temp :
       {"/tmp/reapcheck-a,b\\c d'q-XXXXXX", "/tmp/reapcheck-a,b:c\\d-XXXXXX"}) {
    TempDir tmpdir(temp);
    ScratchDir scratch(tmpdir.path());
    SandboxOptions o = options();
    o.scratch = scratch.path();
    o.projects = {project.path()};
    const auto out = run_in_sandbox(
        [&] {
          std::ofstream(project.path() / "a.txt", std::ios::app) << " case";
          return reaper::read_file((project.path() / "a.txt").string());
        },
        o);
    EXPECT_EQ(out.status, SandboxOutcome::Status::finished) << out.output;
    EXPECT_EQ(out.output, "host case") << "TMPDIR " << tmpdir.path();
    EXPECT_EQ(reaper::read_file((project.path() / "a.txt").string()), "host");
  }
}

// The overlay's layers are named relative to their folder, so the scratch they live in may be
// anywhere: here, in a mount namespace of its own, a host view whose scratch is at a path with
// ',', ':', '\\' and a newline (where a case never sees its scratch, but the warden builds the
// same way).
TEST(Bounds, TheOverlayNamesItsLayersWhateverTheirPathHolds) {
  TempDir project("/var/tmp/reapcheck-project-XXXXXX");
  std::ofstream(project.path() / "a.txt") << "host";
  TempDir odd("/var/tmp/reapcheck-a,b:c\\d\ne-XXXXXX");
  const pid_t child = ::fork();
  if (child == 0) {
    int code = 1;
    try {
      if (::unshare(CLONE_NEWNS) != 0) ::_exit(2);
      HostView view;
      view.scratch = odd.path() / "scratch";
      view.projects = {project.path()};
      view.ids = ::geteuid() == 0 ? SandboxIds{kSandboxHostId, kSandboxHostId} : SandboxIds{0, 0};
      prepare_host_view(view);
      std::ofstream(project.path() / "a.txt", std::ios::app) << " case";
      code = reaper::read_file((project.path() / "a.txt").string()) == "host case" ? 0 : 3;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
    }
    ::_exit(code);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  EXPECT_EQ(reaper::read_file((project.path() / "a.txt").string()), "host");
}

// A Unix socket that anyone may connect to, in a host folder outside /tmp and /run, is covered
// for the case by an empty file of mode 0 (EACCES, or ECONNREFUSED rootless, where the case may
// open it); the host still reaches it.
TEST(Bounds, AHostSocketOutsideThePrivateFoldersAcceptsNoConnectionFromTheCase) {
  TempDir dir((fs::current_path() / "reapcheck-sockets-XXXXXX").string());
  const fs::path path = dir.path() / "service.sock";
  const UniqueFd listener(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  ASSERT_EQ(::bind(listener.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(listener.get(), 8), 0);
  ASSERT_EQ(::chmod(path.c_str(), 0777), 0);
  ASSERT_EQ(connect_errno(path), 0) << "the host reaches it";

  const auto out = run_in_sandbox(
      [&] {
        struct stat st {};
        const bool socket = ::lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
        return std::string(socket ? "a socket" : "no socket") +
               (connect_errno(path) == 0 ? ", connected" : ", refused");
      },
      options());
  ASSERT_EQ(out.status, SandboxOutcome::Status::finished) << out.output;
  EXPECT_EQ(out.output, "no socket, refused");
  EXPECT_EQ(connect_errno(path), 0) << "the host still reaches it";
}

// /proc/net/unix's paths: absolute ones, each once, spaces kept; no abstract or unnamed socket.
TEST(Bounds, TheBoundSocketPathsAreReadFromProcNetUnix) {
  const std::string text =
      "Num       RefCount Protocol Flags    Type St Inode Path\n"
      "0000000000000000: 00000002 00000000 00010000 0001 01 1234 /run/a.sock\n"
      "0000000000000000: 00000002 00000000 00000000 0002 01 1235 @abstract\n"
      "0000000000000000: 00000003 00000000 00000000 0001 03 1236\n"
      "0000000000000000: 00000002 00000000 00010000 0001 01 1237 /srv/my app/b.sock\n"
      "0000000000000000: 00000002 00000000 00010000 0001 01 1238 /run/a.sock\n"
      "0000000000000000: 00000002 00000000 00010000 0001 01 1239 relative.sock\n";
  const std::vector<fs::path> paths = bound_socket_paths(text);
  ASSERT_EQ(paths.size(), 2u);
  EXPECT_EQ(paths[0], "/run/a.sock");
  EXPECT_EQ(paths[1], "/srv/my app/b.sock");
}

TEST(Bounds, TheOomKillsAreReadFromTheGroupsEvents) {
  EXPECT_EQ(oom_kills_in("low 0\nhigh 0\nmax 12\noom 1\noom_kill 3\noom_group_kill 1\n"), 3);
  EXPECT_EQ(oom_kills_in("oom_kill_disable 0\nunder_oom 0\noom_kill 2\n"), 2);
  EXPECT_EQ(oom_kills_in(""), 0);
  EXPECT_EQ(memory_text(64 * kMiB), "64 MiB");
  EXPECT_EQ(memory_text(kMiB * 6 * 1024), "6 GiB");
  EXPECT_EQ(memory_text(kMiB * 6 * 1024 + kMiB * 512), "6.5 GiB");
}

}  // namespace
}  // namespace reapcheck
