#include "harness/engine/census/awaited_fds.h"

#include <poll.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "harness/engine/census/thread_wait.h"
#include "reaper/os/pidfd.h"
#include "reaper/os/unique_fd.h"

namespace reapcheck {
namespace {

// How many descriptors of one poll() or select() are looked at; a wait on more is not judged.
constexpr unsigned long kMaxPolled = 64;
constexpr unsigned long kMaxSelected = FD_SETSIZE;

// The descriptors a call waits on, with the events it waits for; empty when it cannot be told.
std::vector<pollfd> awaited(pid_t tid, long nr, const unsigned long long (&a)[6]) {
  const int first = static_cast<int>(a[0]);
  switch (nr) {
    case 0:    // read (accept and recv wait on sockets, which are not polled here)
    case 19:   // readv
    case 232:  // epoll_wait: an epoll descriptor polls readable while an item is ready
    case 281:  // epoll_pwait
    case 441:  // epoll_pwait2
      return {{first, POLLIN, 0}};
    case 1:  // write (a full pipe)
      return {{first, POLLOUT, 0}};
    case 7:      // poll
    case 271: {  // ppoll
      if (a[1] == 0 || a[1] > kMaxPolled) return {};
      std::vector<pollfd> fds(a[1]);
      if (!read_thread_memory(tid, a[0], fds.data(), fds.size() * sizeof(pollfd))) return {};
      return fds;
    }
    case 23:     // select
    case 270: {  // pselect6
      const unsigned long n = a[0];
      if (n == 0 || n > kMaxSelected) return {};
      std::vector<pollfd> fds;
      const std::array<short, 3> events = {POLLIN, POLLOUT, POLLPRI};  // read, write, except
      for (size_t set = 0; set < events.size(); ++set) {
        fd_set bits;
        FD_ZERO(&bits);
        const size_t bytes = (n + 63) / 64 * 8;  // whole longs, as the kernel reads them
        if (a[1 + set] == 0) continue;
        if (!read_thread_memory(tid, a[1 + set], &bits, bytes)) return {};
        for (int fd = 0; fd < static_cast<int>(n); ++fd) {
          if (FD_ISSET(fd, &bits)) fds.push_back({fd, events[set], 0});
        }
      }
      return fds;
    }
    default:
      return {};
  }
}

// Whether the process's descriptor `fd` is one not to poll from here: a signalfd (it would tell
// of this process's signals, not of the owner's), or a socket (a copy held here, however briefly,
// keeps a listening port bound past its owner's death and makes this process its holder).
bool not_polled_here(pid_t pid, int fd) {
  std::array<char, 64> link{};
  const std::string path = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd);
  const ssize_t n = ::readlink(path.c_str(), link.data(), link.size() - 1);
  const std::string target(link.data(), n > 0 ? static_cast<size_t>(n) : 0);
  return target.empty() || target == "anon_inode:[signalfd]" || target.rfind("socket:", 0) == 0;
}

}  // namespace

bool awaited_ready(pid_t pid, pid_t tid, long nr, const unsigned long long (&args)[6]) {
  const std::vector<pollfd> fds = awaited(tid, nr, args);
  if (fds.empty()) return false;
  const auto owner = reaper::pidfd_open(pid);
  if (!owner) return false;
  return std::any_of(fds.begin(), fds.end(), [&](const pollfd& p) {
    if (p.fd < 0 || not_polled_here(pid, p.fd)) return false;
    const reaper::UniqueFd copy(
        static_cast<int>(::syscall(SYS_pidfd_getfd, owner->get(), p.fd, 0)));
    if (!copy) return false;
    pollfd look{copy.get(), p.events, 0};
    return ::poll(&look, 1, 0) == 1 && (look.revents & (p.events | POLLHUP | POLLERR)) != 0;
  });
}

}  // namespace reapcheck
