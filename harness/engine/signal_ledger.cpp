#include "harness/engine/signal_ledger.h"

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

#include "harness/engine/activity.h"
#include "harness/engine/signal_call.h"
#include "harness/model/text.h"
#include "reaper/os/deadline.h"
#include "reaper/os/pidfd.h"
#include "reaper/os/proc_table.h"
#include "reaper/os/sys_error.h"
#include "reaper/reaper.h"

namespace reapcheck {
namespace {

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
  seccomp_notif call{};
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
      if (!take(call)) open = false;
    }
    // The reaper's calls by number wait until what the calls before them set in motion is over.
    while (!deferred_.empty()) {
      const bool quiet = settle_step();
      const bool overdue = Clock::now() - deferred_.front().since > kSettleBound;
      if (!quiet && !overdue) break;
      answer(deferred_.front().call, !quiet);
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
bool SignalLedger::take(seccomp_notif& call) {
  std::memset(&call, 0, sizeof call);
  // The listener speaks ioctl; libseccomp's wrappers need its state from loading a filter,
  // which happened in the reaper host, not here.
  if (::ioctl(listener_.get(), SECCOMP_IOCTL_NOTIF_RECV, &call) != 0) {
    return errno == ENOENT || errno == EINTR;  // its sender died before we looked
  }
  const auto sender = static_cast<pid_t>(call.pid);
  learn_lineage(sender);
  // Who the sender is, asked once: the census may read its /proc entry to say.
  const bool reapers = is_signal_call(call.data.nr) && from_reaper(sender);
  if (reapers && after_return(sender)) {
    const std::lock_guard lock(mutex_);
    if (!returned_) {
      after_return_.push_back(call);
      return true;
    }
  }
  route(call, reapers);
  return true;
}

void SignalLedger::route(const seccomp_notif& call, bool reapers) {
  // Only a signal by number waits: an act on a process (signal_call.h) is recorded as it is made.
  if (reapers && call.data.nr != SYS_pidfd_send_signal) {
    deferred_.push_back({call, Clock::now()});
  } else {
    answer(call, false);
  }
}

bool SignalLedger::after_return(pid_t sender) const {
  const std::optional<pid_t> root = census_.reaper_root(sender);
  if (!root || *root == sender) return false;
  // Exited, reaped or not, or exiting: a helper woken by the end of a pipe the command held
  // acts while the command is still in its exit.
  return !lives_on(*root);
}

void SignalLedger::release_after_return() {
  {
    const std::lock_guard lock(mutex_);
    returned_ = true;
  }
  const uint64_t one = 1;
  (void)!::write(wake_.get(), &one, sizeof one);
}

bool SignalLedger::from_reaper(pid_t sender) const {
  const auto who = census_.who(sender);
  return !who || who->kind == Party::Kind::reaper || who->kind == Party::Kind::harness;
}

std::vector<std::string> SignalLedger::gone_before_the_reaper() const {
  const std::lock_guard lock(mutex_);
  return gone_before_;
}

bool SignalLedger::reaper_reached(pid_t pid) const {
  const std::lock_guard lock(mutex_);
  return std::any_of(records_.begin(), records_.end(), [pid](const auto& entry) {
    const SignalRecord& r = entry.second;
    return r.counts() && std::any_of(r.reached.begin(), r.reached.end(),
                                     [pid](const Party& p) { return p.pid == pid; });
  });
}

void SignalLedger::answer(const seccomp_notif& call, bool unsettled) {
  const auto at = Clock::now();
  // The existence probe (signal 0) changes nothing: a reaper has acted from its first real signal.
  const int sig = call.data.nr == SYS_tgkill || call.data.nr == SYS_rt_tgsigqueueinfo
                      ? static_cast<int>(call.data.args[2])
                      : static_cast<int>(call.data.args[1]);
  if (sig != 0 && is_signal_call(call.data.nr) && from_reaper(static_cast<pid_t>(call.pid))) {
    const std::lock_guard lock(mutex_);
    if (!reaper_signalled_) gone_before_ = census_.dead_members(released_ever_);
    reaper_signalled_ = true;
  }
  SignalRecord record;
  try {
    record = resolve(call);
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
    for (const Party& p : record.reached) {
      if (p.alive) add_candidate(p.pid);
    }
  }
  {
    // Recorded before the sender goes on: whatever it does next (report done, say) comes after
    // its call is in the ledger.
    const std::lock_guard lock(mutex_);
    records_.emplace_back(at, std::move(record));
  }
  seccomp_notif_resp response{};
  response.id = call.id;
  response.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
  ::ioctl(listener_.get(), SECCOMP_IOCTL_NOTIF_SEND, &response);
}

// A process of the reaper's side whose own call is held here reaps nothing until it is answered
// (timeout(1) reaps its child from its main loop, not from a handler): waiting for it to reap
// would wait for ourselves. The reaper host reaps from its SIGCHLD handler, which runs while it
// waits, and is never held in this sense.
bool SignalLedger::held(pid_t pid) const {
  return std::any_of(deferred_.begin(), deferred_.end(),
                     [&](const Deferred& d) { return static_cast<pid_t>(d.call.pid) == pid; }) ||
         std::any_of(after_return_.begin(), after_return_.end(),
                     [&](const seccomp_notif& c) { return static_cast<pid_t>(c.pid) == pid; });
}

void SignalLedger::release_held_leftovers() {
  {
    const std::lock_guard lock(mutex_);
    if (!returned_) return;
  }
  // Each a signal call of the reaper's side, as take() found it.
  for (const seccomp_notif& call : std::exchange(after_return_, {})) route(call, true);
}

bool SignalLedger::add_candidate(pid_t pid) {
  // One candidate a process: a reaper that signals each of 5,000 members three times (SIGTERM,
  // SIGCONT, SIGKILL) would otherwise hold 15,000 pidfds here, and the case ran out of fds.
  if (std::any_of(candidates_.begin(), candidates_.end(), [pid](const Candidate& c) {
        return c.pid == pid && !reaper::pidfd_exited(c.pidfd.get());
      })) {
    return false;
  }
  auto fd = reaper::pidfd_open(pid);
  const auto p = reaper::ProcTable::read_one(pid, reaper::Detail::stat);
  if (!fd || !p) return false;
  candidates_.push_back({pid, p->sid, std::move(*fd)});
  return true;
}

bool SignalLedger::race_pending() {
  std::vector<pid_t> released;
  bool pending = false;
  {
    const std::lock_guard lock(mutex_);
    released.swap(released_);
    pending = race_armed_ && std::all_of(race_triggers_.begin(), race_triggers_.end(),
                                         [](const reaper::UniqueFd& fd) {
                                           return reaper::pidfd_exited(fd.get());
                                         });
  }
  for (pid_t pid : released) add_candidate(pid);
  return pending;
}

bool SignalLedger::settle_step() {
  if (race_pending()) return false;
  for (bool grew = true; grew;) {
    grew = false;
    std::vector<Candidate> still;
    std::vector<pid_t> dependants;
    for (Candidate& c : candidates_) {
      // A timer is not waited for: what it will do, a reaper racing it may meet or miss.
      const Activity a =
          activity(c.pid, c.pidfd.get(), census_, [this](pid_t pid) { return held(pid); });
      if (a != Activity::settled && a != Activity::timed) {
        still.push_back(std::move(c));
      } else if (reaper::pidfd_exited(c.pidfd.get())) {
        // A death may take others along (its terminal's hang-up): they are looked at in turn.
        for (pid_t d : census_.dependants(c.pid, c.sid)) dependants.push_back(d);
      }
    }
    candidates_ = std::move(still);
    for (pid_t d : dependants) grew |= add_candidate(d);
  }
  // The race's triggers may have exited while the loop above looked at them: look again (which
  // may add members the race released), or a call could pass between the race's window opening
  // and its decoy being placed.
  if (!candidates_.empty() || race_pending()) return false;
  return candidates_.empty();
}

// Whether a pid the reaper names by number is still held depends on how fast the processes it
// already killed die and are reaped. Letting every death under way finish before the call is
// resolved takes the scheduler out of the answer: the call meets the world that the slowest
// reaper would meet, every run.
SignalRecord SignalLedger::resolve(const seccomp_notif& call) const {
  return resolve_signal_call(call, census_);
}

}  // namespace reapcheck
