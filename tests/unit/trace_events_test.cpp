// trace_pipe text into generated signals: what the kernel sends on a process's behalf is kept,
// with where it came from; a system call's signal (the seccomp ledger's) and the kernel's
// incidental ones (timers, SIGPIPE) are dropped.
#include "harness/sandbox/trace_events.h"

#include <gtest/gtest.h>

#include "harness/sandbox/kernel_signal_trace.h"

namespace reapcheck {
namespace {

// As a 6.x kernel prints them, stacktrace option on.
constexpr std::string_view kCgroupKill =
    "            bash-14505   [001] d..1.   493.022790: signal_generate: sig=9 errno=0 code=0 "
    "comm=sleep pid=14516 grp=0 res=0\n"
    "            bash-14505   [001] d..1.   493.023441: <stack trace>\n"
    " => trace_event_raw_event_signal_generate\n"
    " => __send_signal_locked\n"
    " => do_send_sig_info\n"
    " => __cgroup_kill\n"
    " => cgroup_kill_write\n"
    " => kernfs_fop_write_iter\n"
    " => vfs_write\n"
    " => ksys_write\n"
    " => do_syscall_64\n";

constexpr std::string_view kSyscallKill =
    "            bash-14505   [001] d..1.   493.026916: signal_generate: sig=15 errno=0 code=0 "
    "comm=sleep pid=14517 grp=1 res=0\n"
    "            bash-14505   [001] d..1.   493.026946: <stack trace>\n"
    " => __send_signal_locked\n"
    " => kill_something_info\n"
    " => __x64_sys_kill\n"
    " => do_syscall_64\n";

constexpr std::string_view kMarker =
    "   reapcheck run-1 [000] ...1.   493.028572: tracing_mark_write: sync 3\n";

TEST(TraceEvents, KeepsTheKernelsOwnSignalsWithTheirOrigin) {
  TraceEventReader reader;
  auto out =
      reader.feed(std::string(kCgroupKill) + std::string(kSyscallKill) + std::string(kMarker));
  ASSERT_EQ(out.signals.size(), 1U);
  const GeneratedSignal& s = out.signals[0];
  EXPECT_EQ(s.origin, "cgroup.kill");
  EXPECT_EQ(s.sender, 14505);
  EXPECT_EQ(s.sender_comm, "bash");
  EXPECT_EQ(s.target, 14516);
  EXPECT_EQ(s.target_comm, "sleep");
  EXPECT_EQ(s.sig, 9);
  EXPECT_EQ(s.mono_ns, 493'022'790'000);
  ASSERT_EQ(out.markers.size(), 1U);
  EXPECT_EQ(out.markers[0], "sync 3");  // a comm with a space and a dash is still read
}

TEST(TraceEvents, AnEventWaitsForItsWholeStackWhateverTheSplit) {
  const std::string text = std::string(kCgroupKill) + std::string(kMarker);
  for (size_t cut = 1; cut < text.size(); cut += 7) {
    TraceEventReader reader;
    auto first = reader.feed(std::string_view(text).substr(0, cut));
    auto second = reader.feed(std::string_view(text).substr(cut));
    EXPECT_EQ(first.signals.size() + second.signals.size(), 1U) << "cut at " << cut;
    EXPECT_EQ(first.markers.size() + second.markers.size(), 1U) << "cut at " << cut;
  }
}

TEST(TraceEvents, OriginsFromTheStack) {
  EXPECT_EQ(kernel_origin({"__send_signal_locked", "zap_pid_ns_processes", "do_exit"}),
            "PID namespace teardown");
  EXPECT_EQ(kernel_origin({"__send_signal_locked", "tty_signal_session_leader", "__tty_hangup"}),
            "terminal");
  EXPECT_EQ(kernel_origin({"__send_signal_locked", "do_exit", "__x64_sys_exit_group"}),
            "exit (parent-death signal or orphaned group)");
  EXPECT_EQ(kernel_origin({"__send_signal_locked", "__x64_sys_tgkill"}), "");
  EXPECT_EQ(kernel_origin({"__send_signal_locked", "it_real_fn", "hrtimer_interrupt"}), "");
  EXPECT_EQ(kernel_origin({"send_sig", "pipe_write", "vfs_write", "ksys_write"}), "");
  // Signals a non-signal call makes the kernel send to someone else are not the ledger's.
  EXPECT_EQ(
      kernel_origin({"__send_signal_locked", "send_sigio_to_task", "send_sigio", "kill_fasync",
                     "pipe_write", "vfs_write", "ksys_write", "__x64_sys_write"}),
      "an fd's owner signal (F_SETOWN, a lease break)");
  EXPECT_EQ(kernel_origin({"send_sig_info", "ptrace_attach", "__x64_sys_ptrace"}), "ptrace attach");
}

TEST(TraceEvents, ForksAreReadWithTheForkingThreadAndTheChild) {
  TraceEventReader reader;
  auto out = reader.feed(
      "  perl-100 [000] ..... 5.000001: sched_process_fork: comm=perl pid=100 child_comm=perl "
      "child_pid=101\n");
  ASSERT_EQ(out.forked.size(), 1U);
  EXPECT_EQ(out.forked[0].parent, 100);
  EXPECT_EQ(out.forked[0].child, 101);
  EXPECT_TRUE(out.signals.empty());
}

TEST(TraceEvents, MalformedLinesAreSkipped) {
  TraceEventReader reader;
  auto out = reader.feed(
      "# tracer: nop\n"
      "garbage without a cpu column\n"
      "  x-1 [001] d..1. 1.000001: signal_generate: sig=nine comm=a pid=2 res=0\n"
      " => cgroup_kill_write\n");
  EXPECT_TRUE(out.signals.empty());
}

TEST(KernelSignalFeed, LinesRoundTripWithSpacesInNames) {
  GeneratedSignal s;
  s.mono_ns = 12345;
  s.sender = 7;
  s.sender_comm = "my reaper";
  s.target = 9;
  s.target_comm = "node\tserver";
  s.sig = 9;
  s.result = 1;
  s.origin = "cgroup.kill";
  std::string line = kernel_signal_line(s);
  ASSERT_EQ(line.back(), '\n');
  line.pop_back();
  std::string marker = "untouched";
  auto back = parse_kernel_signal_line(line, &marker);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->mono_ns, 12345);
  EXPECT_EQ(back->sender, 7);
  EXPECT_EQ(back->sender_comm, "my reaper");
  EXPECT_EQ(back->target, 9);
  EXPECT_EQ(back->target_comm, "node server");
  EXPECT_EQ(back->result, 1);
  EXPECT_EQ(back->origin, "cgroup.kill");
  EXPECT_FALSE(parse_kernel_signal_line("M sync 4", &marker));
  EXPECT_EQ(marker, "sync 4");
}

}  // namespace
}  // namespace reapcheck
