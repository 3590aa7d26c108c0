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

// pidfd_send_signal's flags (Linux 6.9): where the signal goes besides the process itself.
constexpr unsigned kPidfdSignalThread = 1;
constexpr unsigned kPidfdSignalProcessGroup = 4;

std::string pid_namespace_of(pid_t pid) {
  char link[64] = {};
  const std::string path = "/proc/" + std::to_string(pid) + "/ns/pid";
  return ::readlink(path.c_str(), link, sizeof link - 1) > 0 ? link : "";
}

// The last number of an "NSpid:"-style line: the id in the process's own namespace.
pid_t innermost(const std::string& line) {
  const size_t at = line.find_last_of(" \t");
  return static_cast<pid_t>(
      std::strtol(line.c_str() + (at == std::string::npos ? 0 : at + 1), nullptr, 10));
}

// The id the sender wrote, in this namespace. A sender in a PID namespace of its own (the pidns
// reaper's agent and its tree) writes ids of that namespace.
pid_t in_our_namespace(pid_t sender, pid_t id, const char* field) {
  const std::string theirs = pid_namespace_of(sender);
  if (theirs.empty() || theirs == pid_namespace_of(::getpid())) return id;
  const reaper::ProcTable table = reaper::ProcTable::read("/proc", reaper::Detail::stat);
  for (const auto& p : table.all()) {
    if (pid_namespace_of(p.pid) != theirs) continue;
    if (innermost(reaper::status_field(p.pid, field)) != id) continue;
    return std::string_view(field) == "NSpgid" ? p.pgid : p.pid;
  }
  return 0;  // nothing there by that id
}

// Everything `reached` holds is `sender`'s own exited child, not yet reaped: ids it keeps taken.
bool pinned_by(pid_t sender, const std::vector<Party>& reached) {
  return !reached.empty() && std::all_of(reached.begin(), reached.end(), [&](const Party& p) {
    const auto self = reaper::ProcTable::read_one(p.pid, reaper::Detail::stat);
    return !p.alive && self && self->ppid == sender;
  });
}

// The process a thread id belongs to.
pid_t thread_group_of(pid_t tid) {
  const std::string tgid = reaper::status_field(tid, "Tgid");
  return tgid.empty() ? 0 : static_cast<pid_t>(std::strtol(tgid.c_str(), nullptr, 10));
}

}  // namespace

SignalLedger::SignalLedger(reaper::UniqueFd listener, const Census& census,
                           std::optional<KernelSignalFeed> kernel)
    : listener_(std::move(listener)),
      stop_(::eventfd(0, EFD_CLOEXEC)),
      wake_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)),
      census_(census),
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
    }
    if ((fds[3].revents & (POLLIN | POLLHUP)) != 0 && !read_kernel()) feed_open = false;
    if ((fds[0].revents & (POLLHUP | POLLERR)) != 0 && (fds[0].revents & POLLIN) == 0) {
      open = false;  // no filtered process is left
    }
    look_again = std::min(std::chrono::milliseconds(8), look_again * 2);
  }
}

bool SignalLedger::sync_kernel(Clock::time_point deadline) {
  if (!kernel_) return true;
  std::unique_lock lock(mutex_);
  const uint64_t n = ++sync_asked_;
  const std::string marker = fmt::format("sync {}", n);
  if (::write(kernel_->marker, marker.data(), marker.size()) !=
      static_cast<ssize_t>(marker.size())) {
    return false;
  }
  return synced_.wait_until(lock, deadline, [&] { return sync_seen_ >= n; });
}

uint64_t SignalLedger::kernel_lost() const {
  const std::lock_guard lock(mutex_);
  return kernel_lost_;
}

bool SignalLedger::read_kernel() {
  char buf[65536];
  const ssize_t n = ::read(kernel_->events, buf, sizeof buf);
  if (n <= 0) return n < 0 && errno == EINTR;
  kernel_partial_.append(buf, static_cast<size_t>(n));
  size_t start = 0;
  for (size_t nl = kernel_partial_.find('\n'); nl != std::string::npos;
       nl = kernel_partial_.find('\n', start)) {
    std::string marker;
    const auto s = parse_kernel_signal_line(kernel_partial_.substr(start, nl - start), &marker);
    start = nl + 1;
    if (s) {
      record_kernel(*s);
    } else if (marker.rfind("lost ", 0) == 0) {
      const std::lock_guard lock(mutex_);
      kernel_lost_ = std::strtoull(marker.c_str() + 5, nullptr, 10);
    } else if (marker.rfind("sync ", 0) == 0) {
      const std::lock_guard lock(mutex_);
      sync_seen_ = std::max<uint64_t>(sync_seen_, std::strtoull(marker.c_str() + 5, nullptr, 10));
      synced_.notify_all();
    }
  }
  kernel_partial_.erase(0, start);
  return true;
}

// A signal the kernel sent in a process's context, resolved by the census when it reaches us,
// a moment after: a target already reaped is named by what the census registered there.
void SignalLedger::record_kernel(const GeneratedSignal& s) {
  SignalRecord r;
  r.kernel = true;
  r.call = "kernel: " + s.origin;
  r.sender = s.sender != 0 ? census_.who_or_was(s.sender).value_or(
                                 Party{Party::Kind::reaper, s.sender, s.sender_comm})
                           : Party{Party::Kind::reaper, 0, s.sender_comm + ", exited"};
  if (r.sender.kind == Party::Kind::harness) r.sender.kind = Party::Kind::reaper;
  if (auto p = reaper::ProcTable::read_one(s.sender, reaper::Detail::full);
      p && s.sender != 0 && !p->argv.empty()) {
    r.sender_argv = printable(p->argv);
  } else {
    r.sender_argv = {printable(s.sender_comm)};
  }
  r.target = s.target != 0 ? fmt::format("pid {}", s.target)
                           : fmt::format("{}, exited", printable(s.target_comm));
  if (auto party = census_.who_or_was(s.target); party && s.target != 0) {
    r.reached.push_back(std::move(*party));
  }
  r.signal = reaper::signal_name(s.sig);
  // TRACE_SIGNAL_* of the kernel's signal tracepoints.
  static constexpr std::array<const char*, 5> kResults = {
      "sent", "ignored", "already pending", "queue overflow", "sent without its information"};
  r.result = s.result >= 0 && s.result < static_cast<int>(kResults.size())
                 ? kResults[static_cast<size_t>(s.result)]
                 : fmt::format("not sent ({})", s.result);
  if (r.reached.empty()) r.result += " (its target was gone before it could be looked up)";
  const Clock::time_point at{std::chrono::nanoseconds(s.mono_ns)};
  const std::lock_guard lock(mutex_);
  const auto later =
      std::upper_bound(records_.begin(), records_.end(), at,
                       [](Clock::time_point t, const auto& e) { return t < e.first; });
  records_.emplace(later, at, std::move(r));
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
  if (call.data.nr != SYS_pidfd_send_signal && from_reaper(static_cast<pid_t>(call.pid))) {
    deferred_.push_back({call, Clock::now()});
  } else {
    answer(call, false);
  }
  return true;
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
  if (sig != 0 && from_reaper(static_cast<pid_t>(call.pid))) {
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
  if (record.signal != "0") {
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
                     [&](const Deferred& d) { return static_cast<pid_t>(d.call.pid) == pid; });
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
namespace {

// What a pidfd_send_signal() named: "pidfd of pid 7", "/proc directory of a reaped process".
std::string signal_fd_text(const std::optional<reaper::SignalFd>& fd) {
  const char* what = fd && fd->proc_dir ? "/proc directory" : "pidfd";
  return fd && fd->pid > 0 ? fmt::format("{} of pid {}", what, fd->pid)
                           : fmt::format("{} of a reaped process", what);
}

}  // namespace

SignalRecord SignalLedger::resolve(const seccomp_notif& call) const {
  SignalRecord r;
  const pid_t sender = static_cast<pid_t>(call.pid);
  r.sender = census_.who(sender).value_or(Party{Party::Kind::reaper, sender, "?"});
  // The host runs the reaper: what it sends, the reaper sends (a signal *to* it is a hit).
  if (r.sender.kind == Party::Kind::harness) r.sender.kind = Party::Kind::reaper;
  if (auto p = reaper::ProcTable::read_one(sender, reaper::Detail::full)) {
    r.sender_argv = printable(p->argv);
  }
  const auto arg = [&](int i) { return call.data.args[i]; };
  const auto id = [&](int i) { return static_cast<pid_t>(static_cast<int>(arg(i))); };
  auto one = [&](pid_t pid) {
    if (auto party = census_.who(pid)) r.reached.push_back(std::move(*party));
  };
  int sig = 0;
  switch (call.data.nr) {
    case SYS_kill:
    case SYS_rt_sigqueueinfo: {
      r.call = call.data.nr == SYS_kill ? "kill" : "rt_sigqueueinfo";
      sig = static_cast<int>(arg(1));
      const pid_t target = id(0);
      if (target > 0) {
        r.target = fmt::format("pid {}", target);
        one(in_our_namespace(sender, target, "NSpid"));
      } else if (target == 0) {
        r.target = "its own group";
        if (auto self = reaper::ProcTable::read_one(sender, reaper::Detail::stat)) {
          r.reached = census_.with_id(self->pgid);
        }
      } else if (target == -1) {
        r.target = "every process";
        r.reached = census_.everyone_but(sender);
      } else {
        r.target = fmt::format("group {}", -target);
        r.reached = census_.with_id(in_our_namespace(sender, -target, "NSpgid"));
      }
      break;
    }
    case SYS_tkill:
      r.call = "tkill";
      sig = static_cast<int>(arg(1));
      r.target = fmt::format("thread {}", id(0));
      one(thread_group_of(in_our_namespace(sender, id(0), "NSpid")));
      break;
    case SYS_tgkill:
    case SYS_rt_tgsigqueueinfo:
      r.call = call.data.nr == SYS_tgkill ? "tgkill" : "rt_tgsigqueueinfo";
      sig = static_cast<int>(arg(2));
      r.target = fmt::format("thread {} of pid {}", id(1), id(0));
      one(in_our_namespace(sender, id(0), "NSpid"));
      break;
    case SYS_pidfd_send_signal: {
      r.call = "pidfd_send_signal";
      sig = static_cast<int>(arg(1));
      r.by_pidfd = true;
      const auto flags = static_cast<unsigned>(arg(3));
      const auto fd = reaper::signal_fd_target(sender, static_cast<int>(arg(0)));
      const pid_t pid = fd ? fd->pid : 0;
      r.target = signal_fd_text(fd);
      if ((flags & kPidfdSignalProcessGroup) != 0) {
        r.target += ", its whole group";
        if (auto p = reaper::ProcTable::read_one(pid, reaper::Detail::stat)) {
          r.reached = census_.with_id(p->pgid);
        }
      } else {
        if ((flags & kPidfdSignalThread) != 0) r.target += ", one thread";
        one(pid);
      }
      break;
    }
    default:
      r.call = fmt::format("syscall {}", call.data.nr);
  }
  r.pinned = pinned_by(sender, r.reached);
  r.signal = sig == 0 ? "0" : reaper::signal_name(sig);
  r.result = sig < 0 || sig > SIGRTMAX ? "invalid signal"
             : r.reached.empty()       ? "no such process"
                                       : "sent";
  return r;
}

}  // namespace reapcheck
