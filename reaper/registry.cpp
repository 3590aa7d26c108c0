// The built-in strategies. Each file in strategies/ defines `ReaperInfo <name>_strategy()` (its
// id, its technique in one line, and how to make it); the list below names them in the order
// reports show them. Adding a strategy is that file and one line here.
#include <signal.h>

#include <cstring>

#include "reaper/reaper.h"

#define REAPCHECK_STRATEGIES(X) \
  X(pgroup)                     \
  X(ps_walk)                    \
  X(cmdline)                    \
  X(proc_pidfd)                 \
  X(subreaper)                  \
  X(cgroup)                     \
  X(pidns)

namespace reaper {

#define REAPCHECK_DECLARE(name) ReaperInfo name##_strategy();
REAPCHECK_STRATEGIES(REAPCHECK_DECLARE)
#undef REAPCHECK_DECLARE

const std::vector<ReaperInfo>& builtin_reapers() {
#define REAPCHECK_ENTRY(name) name##_strategy(),
  static const std::vector<ReaperInfo> all = {REAPCHECK_STRATEGIES(REAPCHECK_ENTRY)};
#undef REAPCHECK_ENTRY
  return all;
}

std::string signal_name(int sig) {
  const char* abbrev = ::sigabbrev_np(sig);
  return abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

}  // namespace reaper
