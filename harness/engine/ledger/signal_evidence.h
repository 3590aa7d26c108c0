// What a case's stages ask of the signal ledger (signal_ledger.h): whether the reaper's side
// reached a member before the kill, the kernel's signals and forks so far read in, the leftovers'
// calls let go once the return is noted, the members gone before it acted, and the records.
// LedgerEvidence reads the real ledger; a unit test gives its own. Not on the ledger's hot path:
// only the case's thread asks, between stages.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/engine/ledger/signal_ledger.h"
#include "harness/model/result.h"

namespace reapcheck {

class SignalEvidence {
 public:
  using Clock = std::chrono::steady_clock;

  virtual ~SignalEvidence() = default;

  // SignalLedger's, each.
  virtual bool reaper_reached(pid_t pid) const = 0;
  virtual bool reached_or_kernel(pid_t pid) const = 0;
  virtual std::vector<std::string> gone_before_the_reaper() const = 0;
  virtual bool sync_kernel(Clock::time_point deadline) = 0;
  virtual uint64_t kernel_lost() const = 0;
  virtual void release_after_return() = 0;
  virtual std::vector<SignalRecord> records(Clock::time_point epoch) const = 0;
};

class LedgerEvidence final : public SignalEvidence {
 public:
  explicit LedgerEvidence(SignalLedger& ledger) : ledger_(ledger) {}

  bool reaper_reached(pid_t pid) const override { return ledger_.reaper_reached(pid); }
  bool reached_or_kernel(pid_t pid) const override { return ledger_.reached_or_kernel(pid); }
  std::vector<std::string> gone_before_the_reaper() const override {
    return ledger_.gone_before_the_reaper();
  }
  bool sync_kernel(Clock::time_point deadline) override { return ledger_.sync_kernel(deadline); }
  uint64_t kernel_lost() const override { return ledger_.kernel_lost(); }
  void release_after_return() override { ledger_.release_after_return(); }
  std::vector<SignalRecord> records(Clock::time_point epoch) const override {
    return ledger_.records(epoch);
  }

 private:
  SignalLedger& ledger_;
};

}  // namespace reapcheck
