// The sandbox's promises, each proved with real processes. ctest runs this binary inside
// `unshare --pid --fork --mount-proc`, so even a broken sandbox cannot reach the host.
#include "harness/sandbox/sandbox.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <thread>

#include "harness/engine/bystanders/bystanders.h"
#include "harness/engine/reaper_side/leftovers.h"
#include "harness/sandbox/init_reaping.h"
#include "harness/sandbox/pid_placement.h"
#include "harness/support/layout.h"
#include "reaper/os/backoff.h"
#include "reaper/os/pidfd.h"
#include "reaper/os/proc_table.h"
#include "reaper/os/task_iter.h"

namespace reapcheck {
namespace {

using namespace std::chrono_literals;

SandboxOptions options(std::chrono::milliseconds deadline = 10s,
                       const std::filesystem::path& scratch = {}) {
  SandboxOptions o;
  o.deadline = deadline;
  o.scratch = scratch;  // the body's only writable folder: /tmp inside is a tmpfs of its own
  // What a case reads (the bystander helper in the build tree), as the case runner hands it in:
  // a checkout under /tmp, or in a folder the sandbox's id may not enter, is hidden otherwise.
  o.visible = Layout::of_running_binary().harness_paths();
  return o;
}

// Starts a process that leaves the body's session and group and holds `fd` open until killed:
// the kind of escapee a sandbox must still end.
void start_daemon_holding(int fd, int ready_fd = -1) {
  pid_t p = ::fork();
  if (p == 0) {
    ::setsid();
    if (::fork() != 0) ::_exit(0);  // double fork: re-parented to the sandbox's PID 1
    if (ready_fd >= 0) (void)!::write(ready_fd, "r", 1);
    for (;;) ::pause();
    (void)fd;
  }
  ::waitpid(p, nullptr, 0);
}

// True when every holder of `fd`'s write end is gone within `timeout`.
bool reads_eof(int fd, std::chrono::milliseconds timeout) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(timeout.count())) != 1) return false;
  char c;
  return ::read(fd, &c, 1) == 0;
}

TEST(Sandbox, BodyRunsAsPidOneWithItsOwnProc) {
  auto out = run_in_sandbox(
      [] {
        auto table = reaper::ProcTable::read();
        return std::to_string(::getpid()) + " " + std::to_string(table.all().size()) + " " +
               std::to_string(::getsid(0));
      },
      options());
  ASSERT_EQ(out.status, SandboxOutcome::Status::finished) << out.output;
  EXPECT_EQ(out.output, "1 1 1");
}

TEST(Sandbox, BoundsPidsInsideWithoutTouchingTheHostLimit) {
  auto read_limit = [] {
    std::ifstream in("/proc/sys/kernel/pid_max");
    long v = 0;
    in >> v;
    return v;
  };
  const long host_before = read_limit();
  auto out = run_in_sandbox([&] { return std::to_string(read_limit()); }, options());
  ASSERT_EQ(out.status, SandboxOutcome::Status::finished) << out.output;
  EXPECT_EQ(read_limit(), host_before) << "the host's pid_max changed";
  utsname u{};
  ::uname(&u);
  int major = 0, minor = 0;
  std::sscanf(u.release, "%d.%d", &major, &minor);
  if (major > 6 || (major == 6 && minor >= 14)) {
    EXPECT_EQ(out.output, "8192");
  }
}

TEST(Sandbox, InsideCannotSignalACanaryOutside) {
  pid_t canary = ::fork();
  if (canary == 0) {
    for (;;) ::pause();
  }
  auto canary_fd = reaper::pidfd_open(canary);
  ASSERT_TRUE(canary_fd);
  auto out = run_in_sandbox(
      [canary] {
        int direct = ::kill(canary, SIGKILL) == 0 ? 0 : errno;
        int group = ::kill(-canary, SIGKILL) == 0 ? 0 : errno;
        ::kill(-1, SIGKILL);  // everything this process may signal: only the sandbox
        return std::to_string(direct) + " " + std::to_string(group);
      },
      options());
  ASSERT_EQ(out.status, SandboxOutcome::Status::finished) << out.output;
  EXPECT_EQ(out.output, std::to_string(ESRCH) + " " + std::to_string(ESRCH));
  EXPECT_FALSE(reaper::pidfd_exited(canary_fd->get())) << "the canary was killed from inside";
  reaper::pidfd_signal(canary_fd->get(), SIGKILL);
  ::waitpid(canary, nullptr, 0);
}

TEST(Sandbox, NothingSurvivesABodyThatLeavesAnEscapedDaemon) {
  reaper::Pipe held = reaper::make_pipe();
  auto out = run_in_sandbox(
      [&] {
        start_daemon_holding(held.write.get());
        return std::string("left a daemon");
      },
      options());
  ASSERT_EQ(out.status, SandboxOutcome::Status::finished) << out.output;
  held.write.reset();
  EXPECT_TRUE(reads_eof(held.read.get(), 10s)) << "the daemon outlived its sandbox";
}

TEST(Sandbox, AHungBodyIsEndedAtTheDeadline) {
  reaper::Pipe held = reaper::make_pipe();
  auto out = run_in_sandbox(
      [&] {
        start_daemon_holding(held.write.get());
        for (;;) ::pause();
        return std::string();
      },
      options(300ms));
  EXPECT_EQ(out.status, SandboxOutcome::Status::timed_out);
  held.write.reset();
  EXPECT_TRUE(reads_eof(held.read.get(), 10s));
}

TEST(Sandbox, EverythingInsideDiesWithTheParent) {
  reaper::Pipe held = reaper::make_pipe();
  reaper::Pipe ready = reaper::make_pipe();
  pid_t parent = ::fork();
  if (parent == 0) {
    run_in_sandbox(
        [&] {
          start_daemon_holding(held.write.get(), ready.write.get());
          for (;;) ::pause();
          return std::string();
        },
        options(60s));
    ::_exit(0);
  }
  held.write.reset();
  ready.write.reset();
  char c;
  ASSERT_EQ(::read(ready.read.get(), &c, 1), 1);  // the daemon is up inside
  ::kill(parent, SIGKILL);                        // as a CTest timeout would
  ::waitpid(parent, nullptr, 0);
  EXPECT_TRUE(reads_eof(held.read.get(), 10s)) << "the sandbox outlived its parent";
  // What the killed parent could not remove (its pids group, where there is a v1 hierarchy), as
  // the next run would: the suite leaves nothing on the host.
  for (const HeldItem& held : list_leftovers(Layout::of_running_binary().temp)) {
    if (held.item.run == parent) {
      EXPECT_EQ(held.item.state, HostItem::State::dead)
          << "the parent is dead: " << held_line(held);
    }
  }
  reclaim_leftovers(Reclaim::dead_runs, Layout::of_running_binary().temp);
  for (const HeldItem& held : list_leftovers(Layout::of_running_binary().temp)) {
    EXPECT_NE(held.item.run, parent) << "left by the killed parent: " << held_line(held);
  }
}

TEST(Sandbox, AThrowingBodyIsReportedAsCrashed) {
  auto out = run_in_sandbox([]() -> std::string { throw std::runtime_error("boom"); }, options());
  EXPECT_EQ(out.status, SandboxOutcome::Status::crashed);
  EXPECT_NE(out.output.find("boom"), std::string::npos);
}

TEST(PidPlacement, ForksOnExactlyTheFreedPidAndNotOnATakenOne) {
  auto out = run_in_sandbox(
      [] {
        pid_t first = ::fork();
        if (first == 0) {
          for (;;) ::pause();
        }
        // Taken while the child lives, and while it is an unreaped zombie.
        errno = 0;
        bool taken_live = fork_at_pid(first) < 0 && errno == EEXIST;
        ::kill(first, SIGKILL);
        siginfo_t info{};
        ::waitid(P_PID, static_cast<id_t>(first), &info, WEXITED | WNOWAIT);
        errno = 0;
        bool taken_zombie = fork_at_pid(first) < 0 && errno == EEXIST;
        ::waitpid(first, nullptr, 0);
        reaper::Pipe report = reaper::make_pipe();
        pid_t again = fork_at_pid(first);
        if (again == 0) {
          pid_t self = ::getpid();
          (void)!::write(report.write.get(), &self, sizeof self);
          ::_exit(0);
        }
        pid_t seen = 0;
        (void)!::read(report.read.get(), &seen, sizeof seen);
        ::waitpid(again, nullptr, 0);
        return std::to_string(taken_live) + std::to_string(taken_zombie) + " " +
               std::to_string(again == first) + std::to_string(seen == first);
      },
      options());
  ASSERT_EQ(out.status, SandboxOutcome::Status::finished) << out.output;
  EXPECT_EQ(out.output, "11 11");
}

// Runs `body` as the sandbox's PID 1, reaping its children, with bystanders of its own and a
// deadline 3 s away.
using BystandersBody =
    std::function<std::string(Bystanders&, std::chrono::steady_clock::time_point deadline)>;
SandboxOutcome with_bystanders(const ScratchDir& scratch, const BystandersBody& body) {
  return run_in_sandbox(
      [&] {
        init::start_reaping();
        Census census;
        Bystanders b(Layout::of_running_binary().helper("reapcheck-bystander"), scratch.path(),
                     census);
        return body(b, std::chrono::steady_clock::now() + 3s);
      },
      options(10s, scratch.path()));
}

#if defined(__x86_64__)
// Makes `pid`, waiting in pause(), call exit_group(0): no signal, the way a tracer can. The
// tracer is a child of its own (a tracee's stops are waited for by its tracer), so the caller's
// children stay as they were. True once it is done.
bool make_exit(pid_t pid) {
  pid_t tracer = 0;
  {
    // PID 1 reaps its children from its SIGCHLD handler (init_reaping.h): the tracer is watched
    // from before it can exit, and its status read there, not from a waitpid() that would race
    // the handler.
    const init::BlockChildSignals blocked;
    tracer = ::fork();
    if (tracer == 0) {
      init::reset_in_child();  // the tracee's stops are this process's to wait for, not a handler's
      int status = 0;
      user_regs_struct regs{};
      if (::ptrace(PTRACE_SEIZE, pid, 0, 0) != 0 || ::ptrace(PTRACE_INTERRUPT, pid, 0, 0) != 0 ||
          ::waitpid(pid, &status, __WALL) != pid || ::ptrace(PTRACE_GETREGS, pid, 0, &regs) != 0) {
        ::_exit(1);
      }
      // Stopped in pause(): the instruction before rip is its `syscall` (0f 05). Run it again as
      // exit_group(0).
      const long word = ::ptrace(PTRACE_PEEKTEXT, pid, regs.rip - 2, 0);
      if ((word & 0xffff) != 0x050f) ::_exit(2);
      regs.rip -= 2;
      regs.rax = SYS_exit_group;
      regs.orig_rax = -1;
      regs.rdi = 0;
      ::_exit(::ptrace(PTRACE_SETREGS, pid, 0, &regs) == 0 &&
                      ::ptrace(PTRACE_DETACH, pid, 0, 0) == 0
                  ? 0
                  : 3);
    }
    if (tracer > 0) init::watch(tracer);
  }
  if (tracer <= 0) return false;
  const auto deadline = std::chrono::steady_clock::now() + 3s;
  reaper::Backoff backoff;  // no event says the handler has reaped it: look, backing off
  for (;;) {
    if (const auto exit = init::exit_of(tracer)) {
      return exit->code == CLD_EXITED && exit->status == 0;
    }
    if (std::chrono::steady_clock::now() >= deadline) return false;
    backoff.wait(deadline);
  }
}
#endif

TEST(Bystanders, ReportCatchableSignalsWithSenderAndUncatchableOnesFromOutside) {
  ScratchDir scratch(Layout::of_running_binary().temp);
  auto out =
      with_bystanders(scratch, [](Bystanders& b, std::chrono::steady_clock::time_point deadline) {
        b.start("termed", {}, {}, true, deadline);
        b.start("killed", {}, {}, true, deadline);
        b.start("stopped", {}, {}, true, deadline);
        const std::set<pid_t> started = b.pids();
        std::vector<pid_t> pids(started.begin(), started.end());  // pids rise in start order
        ::kill(pids[0], SIGTERM);
        ::kill(pids[1], SIGKILL);
        ::kill(pids[2], SIGSTOP);
        // Wait for each effect to be observable: the log line, the reaped exit, the stop.
        auto until = [&](auto done) {
          while (!done() && std::chrono::steady_clock::now() < deadline) ::sched_yield();
        };
        until([&] { return init::exit_of(pids[1]).has_value(); });
        until([&] {
          auto p = reaper::ProcTable::read_one(pids[2], reaper::Detail::stat);
          return p && p->state == 'T';
        });
        until([&] { return b.hits().size() >= 3; });
        std::string s;
        for (const auto& h : b.hits()) {
          s += h.role + ":" + h.signal + ":" + std::to_string(h.sender_pid) + " ";
        }
        return s;
      });
  ASSERT_EQ(out.status, SandboxOutcome::Status::finished) << out.output;
  EXPECT_EQ(out.output, "termed:SIGTERM:1 killed:SIGKILL:0 stopped:SIGSTOP:0 ");
}

#if defined(__x86_64__)
// A bystander never exits by itself: made to exit with no signal (by a tracer), it is hit all the
// same, and its number, free now, is no longer a bystander's.
TEST(Bystanders, OneMadeToExitWithoutASignalIsHitAndItsPidNoLongerCounts) {
  ScratchDir scratch(Layout::of_running_binary().temp);
  auto out =
      with_bystanders(scratch, [](Bystanders& b, std::chrono::steady_clock::time_point deadline) {
        b.start("exited", {}, {}, true, deadline);
        b.start("untouched", {}, {}, true, deadline);
        const std::set<pid_t> started = b.pids();
        const pid_t exited = *started.begin();
        if (!make_exit(exited)) return std::string("the tracer failed");
        const auto pidfd = reaper::pidfd_open(exited);
        if (pidfd) reaper::pidfd_wait_exit(pidfd->get(), 3s);
        std::string s;
        for (const auto& h : b.hits()) s += h.role + ":" + h.signal + " ";
        s += std::to_string(b.pids_with_ancestors_below(::getpid()).count(exited));
        return s;
      });
  ASSERT_EQ(out.status, SandboxOutcome::Status::finished) << out.output;
  EXPECT_EQ(out.output, "exited:exit(0) 0");
}
#endif

// One child of TaskIter.AgreesWithProcFilesInsideTheSandbox, of kind 0-7 (below); it closes its
// end of `ready` once it is what it is meant to be, and waits on `hold`.
[[noreturn]] void task_iter_child(int kind, reaper::Pipe& hold, reaper::Pipe& ready) {
  hold.write.reset();
  if (kind == 0) ::setsid();
  if (kind == 1) ::setpgid(0, 0);
  if (kind == 6) {
    // The second thread forks the grandchild and stays, so the grandchild's
    // real_parent is a thread that is not the leader.
    reaper::Pipe forked = reaper::make_pipe();
    std::thread([&] {
      if (::fork() == 0) {
        ready.write.reset();
        forked.write.reset();
        char c;
        (void)!::read(hold.read.get(), &c, 1);
        ::_exit(0);
      }
      forked.write.reset();
      char c;
      (void)!::read(hold.read.get(), &c, 1);
      ::_exit(0);
    }).detach();
    char c;
    (void)!::read(forked.read.get(), &c, 1);
  }
  if (kind == 7) {
    // The main thread exits (SYS_exit ends one thread, without unwinding through the
    // test's frames); the second sees the leader a zombie, then reports ready.
    const pid_t leader = ::getpid();
    std::thread([&, leader] {
      for (;;) {
        const auto self = reaper::ProcTable::read_one(leader, reaper::Detail::stat);
        if (self && self->state == 'Z') break;
        ::sched_yield();
      }
      ready.write.reset();
      char c;
      (void)!::read(hold.read.get(), &c, 1);
      ::_exit(0);
    }).detach();
    ::syscall(SYS_exit, 0);
  }
  ready.write.reset();
  if (kind == 2) ::raise(SIGSTOP);
  if (kind == 3) ::_exit(0);  // stays a zombie: nobody waits for it yet
  char c;
  (void)!::read(hold.read.get(), &c, 1);
  ::_exit(0);
}

// Where the iterator's view (`iter`, and `after`, taken just after) and /proc's differ.
std::string task_iter_diff(const std::optional<std::vector<reaper::ProcInfo>>& iter,
                           const reaper::ProcTable& files,
                           const std::optional<std::vector<reaper::ProcInfo>>& after) {
  std::string diff;
  if (!iter) diff = "the iterator read nothing";
  if (iter && iter->size() != files.all().size()) {
    diff += "sizes " + std::to_string(iter->size()) + " vs " + std::to_string(files.all().size()) +
            "; ";
  }
  for (size_t i = 0; iter && i < std::min(iter->size(), files.all().size()); ++i) {
    const auto& a = (*iter)[i];
    const auto& b = files.all()[i];
    const bool state_ok =
        b.state == a.state || (after && i < after->size() && b.state == (*after)[i].state);
    if (a.pid != b.pid || a.ppid != b.ppid || a.pgid != b.pgid || a.sid != b.sid || !state_ok ||
        a.comm != b.comm || a.start_time != b.start_time) {
      diff += "pid " + std::to_string(b.pid) + ": iter " + std::to_string(a.pid) + " " +
              std::to_string(a.ppid) + " " + std::to_string(a.pgid) + " " + std::to_string(a.sid) +
              " " + a.state + " " + a.comm + " " + std::to_string(a.start_time) + " / proc " +
              std::to_string(b.ppid) + " " + std::to_string(b.pgid) + " " + std::to_string(b.sid) +
              " " + b.state + " " + b.comm + " " + std::to_string(b.start_time) + "; ";
    }
  }
  return diff;
}

// The BPF task iterator must say what /proc says, field for field, for every kind of process a
// reaper meets: a session leader, a group leader, a stopped process, a zombie, plain sleepers, a
// child forked by a second thread (its parent is the process, not that thread), and a process
// whose main thread has exited while another runs on (a leader in state Z, alive).
TEST(TaskIter, AgreesWithProcFilesInsideTheSandbox) {
  if (!reaper::task_iter_available()) GTEST_SKIP() << "no BPF task iterator on this machine";
  auto out = run_in_sandbox(
      [] {
        reaper::Pipe hold = reaper::make_pipe();
        // Each child closes its end of `ready` once its setsid or setpgid is done, so neither
        // view can catch a child half-way (CI once read a session leader before its setsid).
        reaper::Pipe ready = reaper::make_pipe();
        std::vector<pid_t> kids;
        for (int kind = 0; kind < 8; ++kind) {
          pid_t p = ::fork();
          if (p == 0) task_iter_child(kind, hold, ready);
          kids.push_back(p);
        }
        ready.write.reset();
        char c;
        for (ssize_t n = 1; n > 0 || (n < 0 && errno == EINTR);)
          n = ::read(ready.read.get(), &c, 1);
        siginfo_t info{};
        ::waitid(P_PID, kids[2], &info, WSTOPPED | WNOWAIT);
        ::waitid(P_PID, kids[3], &info, WEXITED | WNOWAIT);
        // A sleeper may still be running on its way into read(): states are compared against
        // the iterator's view just before and just after /proc's, as it only moves R to S.
        const auto iter = reaper::read_task_iter();
        const auto files = reaper::ProcTable::read_proc_files("/proc", reaper::Detail::stat);
        const auto after = reaper::read_task_iter();
        const std::string diff = task_iter_diff(iter, files, after);
        ::kill(kids[2], SIGKILL);
        hold.write.reset();
        for (pid_t p : kids) ::waitpid(p, nullptr, 0);
        return std::to_string(files.all().size()) + " processes" + (diff.empty() ? "" : ": ") +
               diff;
      },
      options());
  ASSERT_EQ(out.status, SandboxOutcome::Status::finished) << out.output;
  EXPECT_EQ(out.output, "10 processes");
}

TEST(ScratchDir, IsRemovedWithItsContents) {
  std::filesystem::path p;
  {
    ScratchDir d(Layout::of_running_binary().temp);
    p = d.path();
    std::filesystem::create_directories(p / "a" / "b");
    EXPECT_TRUE(std::filesystem::is_directory(p));
  }
  EXPECT_FALSE(std::filesystem::exists(p));
}

}  // namespace
}  // namespace reapcheck
