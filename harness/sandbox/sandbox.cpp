#include "harness/sandbox/sandbox.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <optional>
#include <variant>

#include "harness/sandbox/case_cgroup.h"
#include "harness/sandbox/kernel_signal_trace.h"
#include "harness/sandbox/memory_bound.h"
#include "harness/sandbox/pids_group.h"
#include "harness/sandbox/warden.h"
#include "harness/support/interrupt.h"
#include "reaper/os/clone.h"
#include "reaper/os/deadline.h"
#include "reaper/os/pidfd.h"
#include "reaper/os/sys_error.h"
#include "reaper/os/task_iter.h"
#include "reaper/os/write_file.h"
#include "reaper/reaper.h"

namespace reapcheck {
namespace {

using reaper::UniqueFd;

// A child of the harness that is ours to end: destruction kills and reaps it.
class Child {
 public:
  explicit Child(pid_t pid) : pid_(pid) {
    auto fd = reaper::pidfd_open(pid);
    if (!fd) reaper::throw_sys("pidfd_open(sandbox)", ESRCH);
    pidfd_ = std::move(*fd);
  }
  ~Child() {
    kill();
    ::waitpid(pid_, nullptr, 0);
  }
  void kill() const { reaper::pidfd_try_signal(pidfd_.get(), SIGKILL); }  // fails once exited
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  int pidfd() const { return pidfd_.get(); }

 private:
  pid_t pid_;
  UniqueFd pidfd_;
};

// Waits until `fd` is readable (or its writers are gone), or the deadline passes (false).
// Meanwhile, forwards what `trace` sees to its body. Throws Interrupted when a watched signal
// arrives.
bool wait_readable(int fd, std::chrono::steady_clock::time_point deadline,
                   KernelSignalTrace* trace) {
  for (;;) {
    const auto left = reaper::time_left(deadline);
    if (left.count() <= 0) return false;
    pollfd fds[3] = {{fd, POLLIN, 0},
                     {interrupt_fd(), POLLIN, 0},
                     {trace != nullptr ? trace->pollable() : -1, POLLIN, 0}};
    const int rc = ::poll(fds, 3, static_cast<int>(left.count()));
    if (rc < 0 && errno != EINTR) reaper::throw_sys("poll(sandbox)");
    if (rc <= 0) continue;
    if ((fds[1].revents & POLLIN) != 0) throw_if_interrupted();
    if ((fds[2].revents & POLLIN) != 0) trace->pump();
    if ((fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0) return true;
  }
}

// Everything PID 1 writes on `fd` until it exits (EOF: every writer is gone); empty when the
// deadline passes first. Throws Interrupted when a watched signal arrives meanwhile.
// Meanwhile, forwards what `trace` sees to the body.
std::optional<std::string> read_until_exit(int fd, std::chrono::steady_clock::time_point deadline,
                                           KernelSignalTrace* trace = nullptr) {
  std::string output;
  char buf[65536];
  while (wait_readable(fd, deadline, trace)) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) output.append(buf, static_cast<size_t>(n));
    if (n == 0) return output;
    if (n < 0 && errno != EINTR) reaper::throw_sys("read(sandbox)");
  }
  return std::nullopt;
}

// How a stage ended, with what it wrote: finished only when it exited 0.
SandboxOutcome outcome_of(int pidfd, std::string output) {
  siginfo_t info{};
  ::waitid(P_PIDFD, static_cast<id_t>(pidfd), &info, WEXITED | WNOWAIT);
  if (info.si_code == CLD_EXITED && info.si_status == 0) {
    return {SandboxOutcome::Status::finished, std::move(output)};
  }
  if (output.empty()) {
    output = info.si_code == CLD_EXITED
                 ? "the sandbox exited with status " + std::to_string(info.si_status)
                 : "the sandbox was killed by " + reaper::signal_name(info.si_status);
  }
  return {SandboxOutcome::Status::crashed, std::move(output)};
}

// While a traced case runs, the thread that translates its kernel events (pump()) runs at
// real-time priority: a process that signals and exits a few milliseconds after its fork must be
// translated while it lives, and on a loaded machine a normal thread wakes too late for that.
// SCHED_RESET_ON_FORK: nothing it clones (the next sandbox) inherits the priority. Needs
// CAP_SYS_NICE, which tracing's root has; without it the thread keeps its policy.
class PromptTracing {
 public:
  explicit PromptTracing(bool tracing) {
    if (!tracing || ::sched_getparam(0, &old_param_) != 0) return;
    old_policy_ = ::sched_getscheduler(0);
    const sched_param rt{1};
    raised_ =
        old_policy_ >= 0 && ::sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &rt) == 0;
  }
  ~PromptTracing() {
    if (raised_) ::sched_setscheduler(0, old_policy_, &old_param_);
  }
  PromptTracing(const PromptTracing&) = delete;
  PromptTracing& operator=(const PromptTracing&) = delete;

 private:
  int old_policy_ = -1;
  sched_param old_param_{};
  bool raised_ = false;
};

// The warden's report: PID 1's pid, or nothing when it failed before cloning it. Forwards what
// `trace` sees while it waits.
std::optional<pid_t> read_pid_one(int fd, std::chrono::steady_clock::time_point deadline,
                                  KernelSignalTrace* trace) {
  wait_readable(fd, deadline, trace);
  pid_t pid = 0;
  ssize_t n = 0;
  do {
    n = ::read(fd, &pid, sizeof pid);
  } while (n < 0 && errno == EINTR);
  if (n == 0) return std::nullopt;
  if (n != sizeof pid) reaper::throw_sys("read PID 1's pid from the warden");
  return pid;
}

// Rootless, the warden's user namespace maps its root to the invoking user.
void map_invoking_user(pid_t warden_pid) {
  const std::string proc = "/proc/" + std::to_string(warden_pid);
  reaper::write_file(proc + "/uid_map", "0 " + std::to_string(::geteuid()) + " 1\n");
  reaper::write_file(proc + "/setgroups", "deny\n");
  reaper::write_file(proc + "/gid_map", "0 " + std::to_string(::getegid()) + " 1\n");
}

SandboxOutcome unavailable(bool rootless, int err) {
  return {SandboxOutcome::Status::unavailable,
          std::string("this machine cannot create the sandbox's namespaces (") +
              (rootless ? "user, " : "") + "mount): " + std::strerror(err)};
}

}  // namespace

struct Sandbox::Parts {
  std::optional<SandboxOutcome> failed;  // why it could not be made
  std::optional<CaseCgroup> cgroup;
  std::optional<PidsGroup> pids;
  std::optional<MemoryGroup> memory;  // where memory.max cannot bound the case
  std::uint64_t memory_max = 0;
  std::optional<std::variant<KernelSignalTrace, std::string>> trace;
  UniqueFd case_go;  // write end: PID 1's go and request
  UniqueFd out;      // read end: what PID 1 returns
  std::optional<Child> warden;
  std::optional<Child> case_init;

  KernelSignalTrace* tracing() { return trace ? std::get_if<KernelSignalTrace>(&*trace) : nullptr; }

  // The case's groups, as `options` ask: its own in the run's cgroup area, and the v1 groups
  // that bound its processes and its memory where that one cannot.
  void make_groups(const SandboxOptions& options, SandboxIds ids) {
    memory_max = options.memory_max != 0 ? options.memory_max : default_memory_max();
    if (!options.cgroup_area.empty()) cgroup.emplace(options.cgroup_area, ids, memory_max);
    // Where pids.max cannot, a v1 pids group bounds the case: the caller's (PidsBound), or its own.
    if ((!cgroup || !cgroup->pids_bounded()) && !PidsGroup::holds_caller())
      pids.emplace(kCasePidsMax);
    if (!cgroup || !cgroup->memory_bounded()) memory.emplace(memory_max);
  }

  // `outcome`, or, where the OOM killer ended some of the case's processes, why it has no verdict.
  SandboxOutcome bounded(SandboxOutcome outcome) const {
    const int kills = cgroup && cgroup->memory_bounded() ? cgroup->oom_kills()
                      : memory                           ? memory->oom_kills()
                                                         : 0;
    if (kills == 0) return outcome;
    return {SandboxOutcome::Status::crashed, over_memory_bound(memory_max, kills)};
  }
};

Sandbox::Sandbox(const SandboxBody& body, const SandboxOptions& options, Sandbox* running)
    : parts_(std::make_unique<Parts>()) {
  Parts& p = *parts_;
  // Loaded here, once per process, so that every sandbox inherits the iterator rather than
  // paying libbpf's load inside each case: the case uses the iterator it is handed, and could
  // not load one.
  reaper::task_iter_available();
  const bool rootless = ::geteuid() != 0;
  const SandboxIds ids = rootless ? SandboxIds{0, 0} : SandboxIds{kSandboxHostId, kSandboxHostId};
  p.make_groups(options, ids);

  // Before the clone: the body inherits the feed it reads.
  p.trace.emplace(KernelSignalTrace::start(options.kernel_signals, options.keep_trace));

  reaper::Pipe go = reaper::make_pipe();
  reaper::Pipe pid_one = reaper::make_pipe();
  reaper::Pipe case_go = reaper::make_pipe();
  reaper::Pipe out = reaper::make_pipe();
  WardenPlan plan{
      HostView{scratch_inside(options.scratch), options.visible, options.shared, options.projects,
               p.cgroup ? p.cgroup->path() : std::string(), ids, p.memory_max},
      p.cgroup ? p.cgroup->path() : std::string(),
      p.pids ? p.pids->path() : std::string(),
      p.memory ? p.memory->path() : std::string(),
      !rootless,
      go.read.get(),
      pid_one.write.get(),
      case_go.read.get(),
      out.write.get()};

  std::fflush(nullptr);  // the child must not flush our buffered output a second time
  const pid_t warden_pid = reaper::clone_child(CLONE_NEWNS | (rootless ? CLONE_NEWUSER : 0),
                                               plan.cgroup, &plan.in_cgroup);
  if (warden_pid < 0) {
    const int err = errno;
    if (err == EPERM || err == EINVAL || err == ENOSPC || err == EUSERS) {
      p.failed = unavailable(rootless, err);
      return;
    }
    reaper::throw_sys("clone the sandbox's warden", err);
  }
  if (warden_pid == 0) {
    go.write.reset();
    pid_one.read.reset();
    case_go.write.reset();
    out.read.reset();
    run_warden(body, plan);
  }
  go.read.reset();
  pid_one.write.reset();
  case_go.read.reset();
  out.write.reset();
  const Child& warden = p.warden.emplace(warden_pid);

  if (rootless) map_invoking_user(warden_pid);
  if (::write(go.write.get(), "g", 1) != 1) reaper::throw_sys("start the sandbox's warden");

  // The warden's work (the mounts, PID 1's clone) is the longest part of making a sandbox: the
  // running case's kernel events keep flowing meanwhile, translated while their processes live.
  KernelSignalTrace* running_trace = running != nullptr ? running->parts_->tracing() : nullptr;
  const auto deadline = std::chrono::steady_clock::now() + options.deadline;
  const std::optional<pid_t> pid = read_pid_one(pid_one.read.get(), deadline, running_trace);
  if (!pid) {  // the warden failed; its reason is on `out`
    p.failed = outcome_of(warden.pidfd(), read_until_exit(out.read.get(), deadline).value_or(""));
    return;
  }
  const Child& case_init = p.case_init.emplace(*pid);  // CLONE_PARENT: no one else can reap it
  siginfo_t info{};
  wait_readable(warden.pidfd(), deadline, running_trace);  // a pidfd is readable once it exits
  if (::waitid(P_PIDFD, static_cast<id_t>(warden.pidfd()), &info, WEXITED | WNOWAIT) != 0 ||
      info.si_code != CLD_EXITED || info.si_status != 0) {
    case_init.kill();  // it holds `out` open, waiting for a go that will not come
    p.failed = outcome_of(warden.pidfd(), read_until_exit(out.read.get(), deadline).value_or(""));
    return;
  }
  if (KernelSignalTrace* tracing = p.tracing()) tracing->follow(*pid);
  // PID 1 sets itself up now, then waits for its request.
  if (::write(case_go.write.get(), "g", 1) != 1) reaper::throw_sys("start the sandbox");
  p.case_go = std::move(case_go.write);
  p.out = std::move(out.read);
}

Sandbox::~Sandbox() = default;

SandboxOutcome Sandbox::run(const std::string& request, std::chrono::milliseconds deadline,
                            const std::function<void()>& meanwhile) {
  Parts& p = *parts_;
  if (p.failed) return *p.failed;
  if (KernelSignalTrace* tracing = p.tracing()) tracing->begin();
  const auto until = std::chrono::steady_clock::now() + deadline;
  // Refused only when PID 1 failed setting itself up: its reason is on `out`.
  if (send_request(p.case_go.get(), request) && meanwhile) meanwhile();
  // Not while `meanwhile` makes the next sandbox: that would take a CPU from this case's start.
  const PromptTracing prompt(p.tracing() != nullptr);
  std::optional<std::string> output = read_until_exit(p.out.get(), until, p.tracing());
  if (!output) {
    return p.bounded(
        {SandboxOutcome::Status::timed_out,
         "the sandbox did not finish within " + std::to_string(deadline.count()) + " ms"});
  }
  return p.bounded(outcome_of(p.case_init->pidfd(), std::move(*output)));
}

std::filesystem::path scratch_inside(const std::filesystem::path& scratch) {
  const std::string& path = scratch.native();
  const bool portable = std::all_of(path.begin(), path.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '/' || c == '.' || c == '_' ||
           c == '-';
  });
  return portable ? scratch : std::filesystem::path("/tmp/reapcheck-scratch");
}

SandboxOutcome run_in_sandbox(const std::function<std::string()>& body,
                              const SandboxOptions& options) {
  Sandbox sandbox([&](const std::string&) { return body(); }, options);
  return sandbox.run({}, options.deadline);
}

namespace {

constexpr std::string_view kScratchPrefix = "reapcheck-";

}  // namespace

ScratchDir::ScratchDir(const std::filesystem::path& temp) : dir_(temp, kScratchPrefix) {}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  std::filesystem::remove_all(dir_.path(), ec);
}

int ScratchDir::reclaim_abandoned(const std::filesystem::path& temp) {
  int removed = 0;
  for (const OwnedDir& dir : OwnedDir::abandoned(temp, kScratchPrefix)) {
    std::error_code ec;
    removed += std::filesystem::remove_all(dir.path(), ec) > 0 ? 1 : 0;
  }
  return removed;
}

std::vector<HostItem> ScratchDir::list(const std::filesystem::path& temp) {
  return OwnedDir::list(temp, kScratchPrefix);
}

}  // namespace reapcheck
