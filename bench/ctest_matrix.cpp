#include "bench/ctest_matrix.h"

#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/process/v2.hpp>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <memory>

#include "harness/engine/reaper_side/leftovers.h"
#include "harness/support/interrupt.h"
#include "reaper/os/pidfd.h"

namespace reapcheck {
namespace {

namespace bp = boost::process::v2;

// ctest leads a process group of its own, which the tests it starts join: an interrupt ends
// them all with one signal, to a group no one else is in. They take the signals this process
// watches (blocked here) as any program does.
struct OwnGroupDefaultInterrupts {
  bp::error_code on_exec_setup(bp::posix::default_launcher&, const bp::filesystem::path&,
                               const char* const*) {
    ::setpgid(0, 0);
    unblock_interrupts();
    return {};
  }
};

// While ctest runs, this process is the subreaper of what it starts: a test that outlives an
// interrupted ctest comes back here to be waited for, rather than to init.
class SubreaperWhileAlive {
 public:
  SubreaperWhileAlive() { ::prctl(PR_SET_CHILD_SUBREAPER, 1); }
  ~SubreaperWhileAlive() { ::prctl(PR_SET_CHILD_SUBREAPER, 0); }
  SubreaperWhileAlive(const SubreaperWhileAlive&) = delete;
  SubreaperWhileAlive& operator=(const SubreaperWhileAlive&) = delete;
};

// The build tree holding this binary (BUILD/bin/reapcheck), if it is one.
std::optional<std::filesystem::path> build_tree() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return std::nullopt;
  std::filesystem::path build = exe.parent_path().parent_path();
  if (!std::filesystem::exists(build / "CTestTestfile.cmake", ec)) return std::nullopt;
  return build;
}

}  // namespace

CtestTiming time_ctest_matrix(int jobs, const std::filesystem::path& log, const Layout& layout) {
  CtestTiming t;
  const std::optional<std::filesystem::path> build = build_tree();
  if (!build) {
    t.why_not = "not run from a build tree: an installed reapcheck has no CTest tests";
    return t;
  }
  const std::string ctest = layout.find_program("ctest");
  if (ctest.empty()) {
    t.why_not = "ctest is not in PATH";
    return t;
  }
  const std::unique_ptr<FILE, int (*)(FILE*)> out(std::fopen(log.c_str(), "w"), &std::fclose);
  if (!out) {
    t.why_not = fmt::format("cannot write {}", log.string());
    return t;
  }
  const SubreaperWhileAlive subreaper;
  boost::asio::io_context ctx;
  const auto started = std::chrono::steady_clock::now();
  bp::process proc(ctx, ctest,
                   {"--test-dir", build->string(), "-j", std::to_string(jobs), "-L", "matrix"},
                   bp::process_stdio{nullptr, out.get(), out.get()}, OwnGroupDefaultInterrupts{});
  const pid_t group = proc.id();
  // Without a pidfd (it cannot fail for a child not yet waited for) an interrupt is not seen.
  const std::optional<reaper::UniqueFd> pidfd = reaper::pidfd_open(group);
  pollfd fds[2] = {{pidfd ? pidfd->get() : -1, POLLIN, 0}, {interrupt_fd(), POLLIN, 0}};
  while (pidfd && ::poll(fds, 2, -1) < 0 && errno == EINTR) {
  }
  const bool interrupted = pidfd && (fds[1].revents & POLLIN) != 0;
  if (interrupted) ::kill(-group, SIGTERM);  // ctest and its tests: the group it leads
  proc.wait();
  t.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  t.status = proc.exit_code();
  // What the group left behind (only after an interrupt: ctest waits for its tests otherwise).
  while (::waitpid(-group, nullptr, 0) > 0 || errno == EINTR) {
  }
  if (interrupted) {
    // The kept tracing instances too, which matrix/clean did not get to remove.
    reclaim_leftovers(Reclaim::and_kept_traces, layout.temp);
    throw_if_interrupted();
  }
  return t;
}

}  // namespace reapcheck
