#include "harness/sandbox/warden.h"

#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "harness/sandbox/case_proc.h"
#include "harness/sandbox/pid_one.h"
#include "harness/support/write_all.h"
#include "reaper/os/sys_error.h"
#include "reaper/os/unique_fd.h"
#include "reaper/os/write_file.h"

namespace reapcheck {
namespace {

// Not CLONE_NEWNS: the case stays in the warden's mount namespace, over which it has no privilege.
// CLONE_NEWIPC: the host's System V objects and POSIX message queues are out of the case's
// reach, and what it makes of them ends with its namespace.
constexpr int kCaseNamespaces =
    CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWCGROUP | CLONE_NEWIPC;

pid_t clone_case(int flags) {
  return static_cast<pid_t>(::syscall(SYS_clone, flags | SIGCHLD, nullptr, nullptr, nullptr, 0));
}

void set_up(const SandboxBody& body, const WardenPlan& plan) {
  // Opened before the case's /proc covers the host's: PID 1's maps are written through it.
  reaper::UniqueFd proc(::open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!proc) reaper::throw_sys("open /proc");
  // PID 1 inherits the group, and its cgroup namespace is rooted there.
  if (!plan.cgroup.empty() && !plan.in_cgroup)
    reaper::write_file(plan.cgroup + "/cgroup.procs", "0");
  if (!plan.pids_group.empty()) reaper::write_file(plan.pids_group + "/cgroup.procs", "0");
  if (!plan.memory_group.empty()) reaper::write_file(plan.memory_group + "/cgroup.procs", "0");
  prepare_host_view(plan.view);
  if (plan.as_root && ::setgroups(0, nullptr) != 0) reaper::throw_sys("drop supplementary groups");

  const pid_t pid = clone_case(CLONE_PARENT | kCaseNamespaces);
  if (pid < 0) reaper::throw_sys("clone the case's namespaces");
  if (pid == 0) run_pid_one(body, plan.case_go_fd, plan.out_fd);
  // Handed over first: from here on the harness ends and reaps PID 1 whatever else happens.
  if (::write(plan.pid_fd, &pid, sizeof pid) != sizeof pid) reaper::throw_sys("hand PID 1 over");
  map_root(proc.get(), pid, plan.view.ids);
  mount_case_proc(pid);
}

}  // namespace

void run_warden(const SandboxBody& body, const WardenPlan& plan) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  char go = 0;
  if (::read(plan.go_fd, &go, 1) != 1) ::_exit(1);
  try {
    set_up(body, plan);
  } catch (const std::exception& e) {
    write_all(plan.out_fd, std::string("sandbox: ") + e.what());
    ::_exit(3);
  }
  ::_exit(0);
}

}  // namespace reapcheck
