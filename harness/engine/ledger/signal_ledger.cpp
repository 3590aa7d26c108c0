#include "harness/engine/ledger/signal_ledger.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

#include "harness/engine/census/activity.h"
#include "harness/engine/census/pid_namespace.h"
#include "harness/engine/ledger/signal_call.h"
#include "harness/model/text.h"
#include "reaper/os/deadline.h"
#include "reaper/os/pidfd.h"
#include "reaper/os/proc_table.h"
#include "reaper/os/sys_error.h"
#include "reaper/reaper.h"

namespace reapcheck {
namespace {

// SECCOMP_IOCTL_NOTIF_SET_FLAGS and SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (Linux 6.6; Debian 12's
// headers predate them).
constexpr unsigned long kSeccompNotifSetFlags = _IOW('!', 4, __u64);  // NOLINT
constexpr unsigned long kSyncWakeUp = 1;

// How long a call may wait for the deaths under way to finish (they take milliseconds).
constexpr std::chrono::seconds kSettleBound{2};

}  // namespace

SignalLedger::SignalLedger(reaper::UniqueFd listener, Census& census, HoldClock* hold,
                           std::optional<KernelSignalFeed> kernel)
    : listener_(std::move(listener)),
      stop_(::eventfd(0, EFD_CLOEXEC)),
      wake_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)),
      census_(census),
      hold_(hold),
      kernel_(kernel) {
  if (!stop_ || !wake_) reaper::throw_sys("eventfd");
  // Linux 6.6: the sender and this thread hand the CPU to each other at each call, instead of
  // each waking the other on another CPU (a wake-up across CPUs costs tens of microseconds in a
  // virtual machine, twice a call). Older kernels refuse the flag: calls are then only slower.
  (void)::ioctl(listener_.get(), kSeccompNotifSetFlags, kSyncWakeUp);
  thread_ = std::thread([this] { serve(); });
}

SignalLedger::~SignalLedger() {
  const uint64_t one = 1;
  (void)!::write(stop_.get(), &one, sizeof one);
  thread_.join();
}

void SignalLedger::arm_race(const std::vector<int>& triggers) {
  const std::lock_guard lock(mutex_);
  for (int fd : triggers) race_triggers_.emplace_back(::fcntl(fd, F_DUPFD_CLOEXEC, 0));
  race_armed_ = true;
}

void SignalLedger::race_staged(const std::vector<pid_t>& released) {
  {
    const std::lock_guard lock(mutex_);
    race_armed_ = false;
    released_.insert(released_.end(), released.begin(), released.end());
    released_ever_.insert(released.begin(), released.end());
  }
  const uint64_t one = 1;
  (void)!::write(wake_.get(), &one, sizeof one);
}

std::vector<SignalRecord> SignalLedger::records(Clock::time_point epoch) const {
  const std::lock_guard lock(mutex_);
  std::vector<SignalRecord> out;
  out.reserve(records_.size());
  for (const auto& [at, record] : records_) {
    out.push_back(record);
    out.back().at_ms = std::chrono::duration<double, std::milli>(at - epoch).count();
  }
  return out;
}

void SignalLedger::serve() {
  // Signals are the main thread's business: its SIGCHLD handling depends on where they land.
  sigset_t all;
  sigfillset(&all);
  ::pthread_sigmask(SIG_BLOCK, &all, nullptr);
  auto look_again = std::chrono::milliseconds(1);
  // The kernel's feed is read to the end of the case: its barrier may come after the last call.
  bool feed_open = kernel_.has_value();
  for (bool open = true; open || !deferred_.empty() || feed_open;) {
    // Every call already waiting is taken first: a process blocked in one is not idle. Only on
    // POLLIN: once no filtered process is left the listener polls POLLHUP, and a receive then
    // fails at once, which would spin here until the case's deadline.
    for (pollfd p{listener_.get(), POLLIN, 0}; open && ::poll(&p, 1, 0) > 0; p.revents = 0) {
      if ((p.revents & POLLIN) == 0) {
        open = (p.revents & (POLLHUP | POLLERR)) == 0;
        break;
      }
      if (!take()) open = false;
    }
    // The reaper's calls by number wait until what the calls before them set in motion is over.
    while (!deferred_.empty()) {
      // Most calls of a reaper that kills member by member need no look at the candidates.
      if (unaffected(deferred_.front().taken.call)) {
        answer(deferred_.front().taken, false);
        deferred_.pop_front();
        continue;
      }
      const bool quiet = settle_step();
      const bool overdue = Clock::now() - deferred_.front().since > kSettleBound;
      const bool aside = !quiet && unaffected(deferred_.front().taken.call);
      if (!quiet && !overdue && !aside) break;
      answer(deferred_.front().taken, !quiet && !aside);
      deferred_.pop_front();
      look_again = std::chrono::milliseconds(1);
    }
    if (hold_ != nullptr) hold_->hold(!deferred_.empty());
    // Then wait: for a call, for the end, for a candidate to die, for the race to be staged, or
    // to look at them again.
    std::vector<pollfd> fds = {{listener_.get(), POLLIN, 0},
                               {stop_.get(), POLLIN, 0},
                               {wake_.get(), POLLIN, 0},
                               {feed_open ? kernel_->events : -1, POLLIN, 0}};
    if (!deferred_.empty()) {
      for (const Candidate& c : candidates_) fds.push_back({c.pidfd.get(), POLLIN, 0});
    }
    if (!open) fds[0].fd = -1;
    const int timeout = deferred_.empty() ? -1 : static_cast<int>(look_again.count());
    if (::poll(fds.data(), fds.size(), timeout) < 0 && errno != EINTR) break;
    if ((fds[1].revents & POLLIN) != 0) break;
    if ((fds[2].revents & POLLIN) != 0) {
      uint64_t n = 0;
      (void)!::read(wake_.get(), &n, sizeof n);
      release_held_leftovers();
    }
    if ((fds[3].revents & (POLLIN | POLLHUP)) != 0 && !read_kernel()) feed_open = false;
    if ((fds[0].revents & (POLLHUP | POLLERR)) != 0 && (fds[0].revents & POLLIN) == 0) {
      open = false;  // no filtered process is left
    }
    look_again = std::min(std::chrono::milliseconds(8), look_again * 2);
  }
}

// One call from the listener: answered at once, or, when the reaper names a pid or group by
// number, deferred until the world has settled. False when the listener is done.
bool SignalLedger::take() {
  seccomp_notif call{};
  // The listener speaks ioctl; libseccomp's wrappers need its state from loading a filter,
  // which happened in the reaper host, not here.
  if (::ioctl(listener_.get(), SECCOMP_IOCTL_NOTIF_RECV, &call) != 0) {
    return errno == ENOENT || errno == EINTR;  // its sender died before we looked
  }
  const auto sender = static_cast<pid_t>(call.pid);
  if (call.data.nr == SYS_exit_group) {
    // Held (watch) until the fork events up to it are read, while it and what it started live.
    kernel_barrier();
    let_through(call);
    return true;
  }
  learn_lineage(sender);
  Taken taken{call, signal_sender(sender, census_)};
  if (is_signal_call(call.data.nr) && reapers_side(taken.sender) && after_return(sender)) {
    const std::lock_guard lock(mutex_);
    if (!returned_) {
      after_return_.push_back(std::move(taken));
      return true;
    }
  }
  route(std::move(taken));
  return true;
}

void SignalLedger::route(Taken taken) {
  // Only a signal by number of the reaper's side waits: an act on a process (signal_call.h) is
  // recorded as it is made.
  const long nr = taken.call.data.nr;
  if (is_signal_call(nr) && reapers_side(taken.sender) && nr != SYS_pidfd_send_signal) {
    deferred_.push_back({std::move(taken), Clock::now()});
  } else {
    answer(taken, false);
  }
}

bool SignalLedger::after_return(pid_t sender) {
  const std::optional<pid_t> root = census_.reaper_root(sender);
  if (!root || *root == sender) return false;
  // Its pidfd, opened once: a command's helper may make thousands of calls.
  auto it = roots_.find(*root);
  if (it == roots_.end()) {
    auto fd = reaper::pidfd_open(*root);
    if (!fd) return true;  // reaped already
    it = roots_.emplace(*root, std::move(*fd)).first;
  }
  // Exited, reaped or not, or exiting: a helper woken by the end of a pipe the command held
  // acts while the command is still in its exit.
  return exiting(*root, it->second.get());
}

void SignalLedger::release_after_return() {
  {
    const std::lock_guard lock(mutex_);
    returned_ = true;
  }
  const uint64_t one = 1;
  (void)!::write(wake_.get(), &one, sizeof one);
}

std::vector<std::string> SignalLedger::gone_before_the_reaper() const {
  const std::lock_guard lock(mutex_);
  return gone_before_;
}

bool SignalLedger::reached(pid_t pid, bool or_kernel) const {
  const std::lock_guard lock(mutex_);
  return std::any_of(records_.begin(), records_.end(), [&](const auto& entry) {
    const SignalRecord& r = entry.second;
    return (r.counts() || (or_kernel && r.kernel)) &&
           std::any_of(r.reached.begin(), r.reached.end(),
                       [pid](const Party& p) { return p.pid == pid; });
  });
}

bool SignalLedger::reaper_reached(pid_t pid) const {
  return reached(pid, false);
}

bool SignalLedger::reached_or_kernel(pid_t pid) const {
  return reached(pid, true);
}

void SignalLedger::answer(const Taken& taken, bool unsettled) {
  const seccomp_notif& call = taken.call;
  const auto at = Clock::now();
  // The existence probe (signal 0) changes nothing: a reaper has acted from its first real signal.
  const int sig = call.data.nr == SYS_tgkill || call.data.nr == SYS_rt_tgsigqueueinfo
                      ? static_cast<int>(call.data.args[2])
                      : static_cast<int>(call.data.args[1]);
  if (sig != 0 && is_signal_call(call.data.nr) && reapers_side(taken.sender)) {
    const std::lock_guard lock(mutex_);
    if (!reaper_signalled_) gone_before_ = census_.dead_members(released_ever_);
    reaper_signalled_ = true;
  }
  place_stray_decoy(call, sig, taken.sender);
  SignalRecord record;
  try {
    record = resolve_signal_call(call, taken.sender, census_);
  } catch (const std::exception& e) {
    // Never leave a sender waiting, nor this thread dead: the call goes through, unresolved.
    record.sender.pid = static_cast<pid_t>(call.pid);
    record.call = fmt::format("syscall {}", call.data.nr);
    record.result = std::string("not resolved: ") + e.what();
  }
  if (unsettled) record.result += " (what earlier calls set in motion was still under way)";
  // Answered only while the sender still waits; a sender killed meanwhile made no call.
  __u64 id = call.id;
  if (::ioctl(listener_.get(), SECCOMP_IOCTL_NOTIF_ID_VALID, &id) != 0) return;
  if (record.signal != "0" && is_signal_call(call.data.nr)) {
    // Not the harness's own processes: what a signal does to them is a hit to report, never a
    // course of the tree's to wait on. The case runner, its namespace's init, takes no signal it
    // does not catch and runs on, and waiting for it held every later call to the bound.
    for (const Party& p : record.reached) {
      if (p.alive && p.kind != Party::Kind::harness) add_candidate(p.pid, sig);
    }
  }
  {
    // Recorded before the sender goes on: whatever it does next (report done, say) comes after
    // its call is in the ledger.
    const std::lock_guard lock(mutex_);
    records_.emplace_back(at, std::move(record));
  }
  let_through(call);
}

void SignalLedger::let_through(const seccomp_notif& call) {
  seccomp_notif_resp response{};
  response.id = call.id;
  response.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
  ::ioctl(listener_.get(), SECCOMP_IOCTL_NOTIF_SEND, &response);
}

void SignalLedger::set_stray_decoys(std::function<bool(pid_t)> place) {
  const std::lock_guard lock(decoy_mutex_);
  place_decoy_ = std::move(place);
}

void SignalLedger::place_stray_decoy(const seccomp_notif& call, int sig, const Party& sender) {
  const std::lock_guard lock(decoy_mutex_);
  if (!place_decoy_ || sig == 0 || !reapers_side(sender)) return;
  if (call.data.nr != SYS_kill && call.data.nr != SYS_rt_sigqueueinfo) return;
  // Ids as the sender wrote them are ours only when it shares our PID namespace.
  if (pid_namespace_of(static_cast<pid_t>(call.pid)) != own_pid_namespace()) return;
  const int id = static_cast<int>(call.data.args[0]);
  if (id == 0 || id == -1 || id == std::numeric_limits<int>::min()) return;
  const pid_t target = id > 0 ? id : -id;
  // Nothing at all there: no process (a zombie keeps its id) and, for a group, no member.
  if (::access(fmt::format("/proc/{}", target).c_str(), F_OK) == 0) return;
  if (id < 0 && !census_.with_id(target).empty()) return;
  place_decoy_(target);
}

void SignalLedger::release_held_leftovers() {
  {
    const std::lock_guard lock(mutex_);
    if (!returned_) return;
  }
  // Each a signal call of the reaper's side, as take() found it.
  for (Taken& taken : std::exchange(after_return_, {})) route(std::move(taken));
}

}  // namespace reapcheck
