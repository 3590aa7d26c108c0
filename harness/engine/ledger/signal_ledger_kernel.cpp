// The signal ledger's side of the kernel's feed (kernel_signal_trace.h): the signals the kernel
// generated, the births its fork events show, and the barriers that say everything traced before
// them has been read. Read by the ledger's serving thread alone.
#include <fmt/format.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "harness/engine/ledger/signal_call.h"
#include "harness/engine/ledger/signal_ledger.h"
#include "harness/sandbox/fork_lineage.h"
#include "reaper/os/deadline.h"

namespace reapcheck {
namespace {

// How long a sender's call waits for its fork event at most; the trace's forwarding thread runs
// at real-time priority, so this is reached only when the trace has stalled.
constexpr std::chrono::seconds kLineageBound{1};

}  // namespace

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
    const std::string line = kernel_partial_.substr(start, nl - start);
    start = nl + 1;
    if (const auto birth = parse_birth_line(line)) {
      census_.note_birth(birth->parent, birth->child);
      continue;
    }
    const auto s = parse_kernel_signal_line(line, &marker);
    if (s) {
      record_kernel(*s);
    } else if (marker.rfind("lost ", 0) == 0) {
      const std::lock_guard lock(mutex_);
      kernel_lost_ = std::strtoull(marker.c_str() + 5, nullptr, 10);
    } else if (marker.rfind("lineage ", 0) == 0) {
      lineage_seen_ =
          std::max<uint64_t>(lineage_seen_, std::strtoull(marker.c_str() + 8, nullptr, 10));
    } else if (marker.rfind("sync ", 0) == 0) {
      const std::lock_guard lock(mutex_);
      sync_seen_ = std::max<uint64_t>(sync_seen_, std::strtoull(marker.c_str() + 5, nullptr, 10));
      synced_.notify_all();
    }
  }
  kernel_partial_.erase(0, start);
  return true;
}

void SignalLedger::learn_lineage(pid_t sender) {
  if (!kernel_ || census_.born_known(sender) || !lineage_learnt_.insert(sender).second) return;
  kernel_barrier();
}

void SignalLedger::kernel_barrier() {
  if (!kernel_) return;
  const uint64_t n = ++lineage_asked_;
  const std::string marker = fmt::format("lineage {}", n);
  if (::write(kernel_->marker, marker.data(), marker.size()) !=
      static_cast<ssize_t>(marker.size())) {
    return;
  }
  // The marker comes back behind every event traced before it, the sender's fork among them.
  const auto deadline = Clock::now() + kLineageBound;
  while (lineage_seen_ < n) {
    pollfd p{kernel_->events, POLLIN, 0};
    const auto left = reaper::time_left(deadline);
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) return;
    if (!read_kernel()) return;
  }
}

// A signal the kernel sent, in order of when it was sent.
void SignalLedger::record_kernel(const GeneratedSignal& s) {
  SignalRecord r = resolve_kernel_signal(s, census_);
  const Clock::time_point at{std::chrono::nanoseconds(s.mono_ns)};
  const std::lock_guard lock(mutex_);
  const auto later =
      std::upper_bound(records_.begin(), records_.end(), at,
                       [](Clock::time_point t, const auto& e) { return t < e.first; });
  records_.emplace(later, at, std::move(r));
}

}  // namespace reapcheck
