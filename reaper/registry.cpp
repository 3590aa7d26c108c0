// The built-in reapers. Adding one means one file in reaper/ and one line here.
#include <signal.h>

#include <cstring>

#include "strategies.h"

namespace reaper {

const std::vector<ReaperInfo>& builtin_reapers() {
  static const std::vector<ReaperInfo> all = {
      {"pgroup", "killpg SIGTERM, grace, killpg SIGKILL (the seed before its fix)", make_pgroup},
      {"ps-walk", "ps -ax snapshot, killpg + per-pid SIGTERM, grace, SIGKILL gated on kill(pid,0)",
       make_ps_walk},
      {"cmdline", "pgrep -f <worktree>, SIGKILL, verify they are gone (the second seed)",
       make_cmdline},
      {"proc-pidfd", "/proc walk, pidfd per member, SIGSTOP to a fixpoint, SIGKILL via pidfd",
       make_proc_pidfd},
      {"subreaper",
       "proc-pidfd under a per-agent PR_SET_CHILD_SUBREAPER shim: orphans stay reachable",
       make_subreaper},
      {"cgroup",
       "the agent in a cgroup v2 of its own: SIGTERM, grace, cgroup.kill, wait for populated 0",
       make_cgroup},
      {"pidns", "the agent as PID 1 of its own PID namespace: SIGTERM, grace, SIGKILL to the init",
       make_pidns},
  };
  return all;
}

const ReaperInfo* find_reaper(std::string_view id) {
  for (const auto& r : builtin_reapers()) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

std::string signal_name(int sig) {
  const char* abbrev = ::sigabbrev_np(sig);
  return abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

}  // namespace reaper
