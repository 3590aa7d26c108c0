#include "harness/engine/census/death_watch.h"

#include <sys/epoll.h>

#include <algorithm>

#include "reaper/os/deadline.h"
#include "reaper/os/sys_error.h"

namespace reapcheck {
namespace {

// Slots are small non-negative ints; the extra fd is told apart by this tag.
constexpr std::uint64_t kOtherTag = ~std::uint64_t{0};

}  // namespace

DeathWatch::DeathWatch() : epoll_(::epoll_create1(EPOLL_CLOEXEC)) {
  if (!epoll_) reaper::throw_sys("epoll_create1");
}

int DeathWatch::add(int pidfd) {
  const int slot = static_cast<int>(died_.size());
  epoll_event ev{};
  // One-shot: an exited process's pidfd stays readable, and must wake us only once.
  ev.events = EPOLLIN | EPOLLONESHOT;
  ev.data.u64 = static_cast<std::uint64_t>(slot);
  if (::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, pidfd, &ev) != 0) {
    reaper::throw_sys("epoll_ctl add pidfd");
  }
  died_.push_back(false);
  died_at_.emplace_back();
  ++alive_;
  return slot;
}

bool DeathWatch::wait(Clock::time_point deadline, int other_fd) {
  if (other_fd != other_) {
    if (other_ >= 0) ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, other_, nullptr);
    other_ = -1;
    if (other_fd >= 0) {
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.u64 = kOtherTag;
      if (::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, other_fd, &ev) != 0) {
        reaper::throw_sys("epoll_ctl add");
      }
      other_ = other_fd;
    }
  }
  epoll_event events[64];
  while (other_ >= 0 || alive_ > 0) {
    const int n = ::epoll_wait(epoll_.get(), events, 64,
                               static_cast<int>(reaper::time_left(deadline).count()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) reaper::throw_sys("epoll_wait");
    if (n == 0) return false;
    const auto now = Clock::now();
    bool other_ready = false;
    for (int i = 0; i < n; ++i) {
      if (events[i].data.u64 == kOtherTag) {
        other_ready = true;
        continue;
      }
      const auto slot = static_cast<size_t>(events[i].data.u64);
      if (died_[slot]) continue;
      died_[slot] = true;
      died_at_[slot] = now;
      --alive_;
      last_death_ = std::max(last_death_, now);
    }
    if (other_ready) return true;
  }
  return false;
}

}  // namespace reapcheck
