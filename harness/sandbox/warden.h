// The sandbox's set-up stage. The mounts that confine a case must be made by someone who holds
// the privilege the case must not have, so the sandbox starts in two steps. The warden, a child of
// the harness in a mount namespace of its own (as root: real root; rootless: root of a user
// namespace mapping the invoking user), starts in the case's cgroup, builds the host view
// (host_view.h), clones PID 1 as the harness's child (CLONE_PARENT: the harness holds its pidfd
// and reaps it) in fresh user, PID, network and cgroup namespaces — sharing the warden's mount
// namespace, over which it has no privilege — maps its root, mounts its /proc (case_proc.h),
// hands its pid to the harness and exits.
#pragma once

#include <functional>
#include <string>

#include "harness/sandbox/host_view.h"
#include "harness/sandbox/pid_one.h"

namespace reapcheck {

struct WardenPlan {
  HostView view;
  std::string cgroup;        // the case's cgroup, which PID 1 starts in; empty: the harness's own
  std::string pids_group;    // the case's v1 pids group (pids_group.h); empty: none
  std::string memory_group;  // the case's v1 memory group (memory_bound.h); empty: none
  bool as_root;              // drop the supplementary groups (the host's root group among them)
  int go_fd;                 // the harness's go byte: it holds the warden's pidfd (and mapped it)
  int pid_fd;                // where PID 1's pid goes
  int case_go_fd;            // PID 1's go byte, from the harness
  int out_fd;                // PID 1's result, or the warden's failure
  bool in_cgroup = false;    // the warden was cloned into `cgroup`, not to be moved there
};

[[noreturn]] void run_warden(const SandboxBody& body, const WardenPlan& plan);

}  // namespace reapcheck
