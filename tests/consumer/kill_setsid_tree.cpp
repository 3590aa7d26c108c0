// Spawns an agent whose child escapes with setsid(), kills the agent with a built-in reaper
// through the public header, and checks that the escapee died too. Exits 0 when it did.
//   kill_setsid_tree [REAPER-ID]   default: proc-pidfd
#include <fcntl.h>
#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>

#include "reaper/reaper.h"

namespace {

// The escapee's pid, as the agent writes it on `fd`: the readiness line, no sleeping.
pid_t read_pid(int fd) {
  std::string line;
  char c = 0;
  while (::read(fd, &c, 1) == 1 && c != '\n') line += c;
  return line.empty() ? -1 : static_cast<pid_t>(std::stol(line));
}

// Whether `pid` exits within `ms`: its pidfd becomes readable when it does.
bool exits_within(pid_t pid, int ms) {
  const int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0) return true;  // already gone
  pollfd p{fd, POLLIN, 0};
  const bool exited = ::poll(&p, 1, ms) == 1;
  ::close(fd);
  return exited;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string_view id = argc > 1 ? argv[1] : "proc-pidfd";
  const reaper::ReaperInfo* info = nullptr;
  for (const auto& r : reaper::builtin_reapers()) {
    if (r.id == id) info = &r;
  }
  if (info == nullptr) return std::fprintf(stderr, "no reaper %s\n", argv[1]), 2;
  int ready[2];
  if (::pipe2(ready, O_CLOEXEC) != 0) return 2;
  // Both ends above 3: from a shell with only 0-2 open, the pipe is 3 and 4, and the dup2 below
  // would close its read end.
  for (int& end : ready) {
    const int moved = ::fcntl(end, F_DUPFD_CLOEXEC, 10);
    ::close(end);
    end = moved;
  }
  auto r = info->make(reaper::ReaperConfig{});
  reaper::AgentSpec spec;
  // The agent's child leaves its session and group (setsid), says its pid, and waits.
  spec.argv = {"sh", "-c", "setsid sh -c 'echo $$ >&3; exec sleep 600' & wait"};
  spec.env = {"PATH=/usr/bin:/bin"};
  ::dup2(ready[1], 3);  // the agent's fd 3, kept open across exec
  spec.inherit_fds = {3};
  reaper::Agent agent = r->spawn(spec);
  ::close(3);
  ::close(ready[1]);
  const pid_t escapee = read_pid(ready[0]);
  if (escapee <= 0) return std::fprintf(stderr, "the escapee never said its pid\n"), 2;
  const reaper::KillReport report = r->kill(agent, std::chrono::milliseconds(300));
  for (const auto& step : report.steps) std::printf("%s: %s\n", info->id.data(), step.c_str());
  if (!exits_within(escapee, 5000)) {
    std::printf("FAIL: the setsid() escapee %d survived %s\n", escapee, info->id.data());
    return 1;
  }
  std::printf("ok: %s killed the agent and its setsid() escapee %d\n", info->id.data(), escapee);
  return 0;
}
