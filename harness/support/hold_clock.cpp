#include "harness/support/hold_clock.h"

#include <sys/mman.h>

#include <new>

#include "reaper/os/sys_error.h"

namespace reapcheck {
namespace {

const HoldClock* g_case_clock = nullptr;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             HoldClock::Clock::now().time_since_epoch())
      .count();
}

}  // namespace

HoldClock::HoldClock() {
  void* at =
      ::mmap(nullptr, sizeof(Page), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (at == MAP_FAILED) reaper::throw_sys("mmap (the ledger's hold clock)");
  page_ = new (at) Page();
}

HoldClock::~HoldClock() {
  if (g_case_clock == this) g_case_clock = nullptr;
  ::munmap(page_, sizeof(Page));
}

void HoldClock::hold(bool held) {
  const int64_t since = page_->since_ns.load();
  if (held && since == 0) {
    page_->since_ns.store(now_ns());
  } else if (!held && since != 0) {
    page_->total_ns.fetch_add(now_ns() - since);
    page_->since_ns.store(0);
  }
}

std::chrono::nanoseconds HoldClock::held() const {
  // Read in this order, a hold that ends between the two reads is counted twice rather than
  // lost: a deadline moves a little too far, never too little.
  const int64_t since = page_->since_ns.load();
  const int64_t total = page_->total_ns.load();
  return std::chrono::nanoseconds(total + (since != 0 ? now_ns() - since : 0));
}

bool HoldClock::wait(Clock::time_point deadline,
                     const std::function<bool(Clock::time_point)>& wait) const {
  const std::chrono::nanoseconds before = held();
  for (Clock::time_point until = deadline;;) {
    if (wait(until)) return true;
    const Clock::time_point further = moved(deadline, before);
    if (further <= until) return false;
    until = further;
  }
}

const HoldClock* HoldClock::of_case() {
  return g_case_clock;
}

void HoldClock::set_case(const HoldClock* clock) {
  g_case_clock = clock;
}

}  // namespace reapcheck
