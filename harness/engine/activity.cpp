#include "harness/engine/activity.h"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>

#include "reaper/os/pidfd.h"
#include "reaper/os/proc_table.h"
#include "reaper/os/read_file.h"

namespace reapcheck {
namespace {

// What settling reads of a process (/proc/<pid>/status).
struct Status {
  bool gone = true;
  char state = '?';
  unsigned long long pending = 0;  // SigPnd | ShdPnd
  unsigned long long blocked = 0;
  unsigned long long caught = 0;
};

// A signal mask line of a status file ("\nSigPnd:"); 0 when absent.
unsigned long long mask_of(const std::string& status, const char* field) {
  const size_t at = status.find(field);
  return at == std::string::npos
             ? 0
             : std::strtoull(status.c_str() + at + std::strlen(field), nullptr, 16);
}

constexpr unsigned long long kSigkill = 1ULL << (SIGKILL - 1);

// The parts of /proc/<pid>/status that tell what a process is doing, from one read of the file.
Status read_status(pid_t pid) {
  Status st;
  const std::string text = reaper::read_file("/proc/" + std::to_string(pid) + "/status");
  if (text.empty()) return st;
  st.gone = false;
  st.pending = mask_of(text, "\nSigPnd:") | mask_of(text, "\nShdPnd:");
  st.blocked = mask_of(text, "\nSigBlk:");
  st.caught = mask_of(text, "\nSigCgt:");
  if (const size_t at = text.find("\nState:"); at != std::string::npos) {
    const size_t letter = text.find_first_not_of(" \t", at + 7);
    if (letter != std::string::npos) st.state = text[letter];
  }
  return st;
}

constexpr unsigned long kPfExiting = 0x4;  // PF_EXITING in a task's flags

// One live thread of the process: a pending SIGKILL, or PF_EXITING in the flags of its stat
// (the ninth field, the seventh after the parenthesised comm). A thread that has exited (Z, X) —
// the leader of a process whose other threads run on — says nothing of the process.
bool thread_dying(const std::string& task) {
  const std::string stat = reaper::read_file(task + "/stat");
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream fields(stat.substr(close + 1));
  std::string state, field;
  fields >> state;
  if (state == "Z" || state == "X") return false;
  for (int i = 0; i < 6 && fields >> field; ++i) {
  }
  if ((std::strtoul(field.c_str(), nullptr, 10) & kPfExiting) != 0) return true;
  const std::string status = reaper::read_file(task + "/status");
  return ((mask_of(status, "\nSigPnd:") | mask_of(status, "\nShdPnd:")) & kSigkill) != 0;
}

}  // namespace

bool dying(pid_t pid) {
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator(tasks, ec)) {
    if (thread_dying(task.path().string())) return true;
  }
  return false;
}

Activity activity(pid_t pid, int pidfd, const Census& census) {
  if (reaper::pidfd_exited(pidfd)) {
    // Dead. Its pid is free once reaped; a parent that reaps (PID 1, the reaper host, anything
    // that catches SIGCHLD) is about to.
    if (reaper::pidfd_target(::getpid(), pidfd).value_or(-1) == -1) return Activity::settled;
    const auto self = reaper::ProcTable::read_one(pid, reaper::Detail::stat);
    if (!self) return Activity::settled;
    const Status parent = read_status(self->ppid);
    const bool reaps = self->ppid == 1 ||
                       census.who(self->ppid).value_or(Party{}).kind == Party::Kind::harness ||
                       (parent.caught & (1ULL << (SIGCHLD - 1))) != 0;
    return reaps && !parent.gone ? Activity::busy : Activity::settled;
  }
  if (dying(pid)) return Activity::dying;
  const Status s = read_status(pid);
  // A signal still pending and not blocked has a handler yet to run (which may exit); a
  // running process may be in one now.
  if ((s.pending & ~s.blocked) != 0 || s.state == 'R' || s.state == 'D') return Activity::busy;
  return Activity::settled;
}

}  // namespace reapcheck
