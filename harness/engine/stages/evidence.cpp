#include "harness/engine/stages/evidence.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>

#include "harness/engine/census/ports.h"

namespace reapcheck {
namespace {

using Clock = CaseContext::Clock;

// How long the kernel's signals may take to reach the case after they were sent.
constexpr std::chrono::milliseconds kKernelSyncBound{2000};

// A member that died before the reaper signalled anything, or that catches no signal and yet
// ended by exit() rather than by a signal, ended on its own: the reaper met a smaller tree than
// the one announced, and whatever it did proves nothing about that member. An observed tree's
// shutdown is its own: a member that ends when its parent dies (stdin closed, a parent-death
// signal) ended by the kill, whatever it caught.
void require_no_unbidden_exit(const CaseContext& ctx) {
  if (ctx.observed()) return;
  const SignalEvidence* ledger = ctx.signal_evidence.get();
  const std::vector<std::string> gone = ended_on_their_own(
      ledger != nullptr ? ledger->gone_before_the_reaper() : std::vector<std::string>{},
      ctx.census.exited_unbidden());
  if (gone.empty()) return;
  setup_failed(fmt::format(
      "member(s) ended on their own, not by the reaper: {} (a member meant to be gone before "
      "the kill is declared 'transient')",
      fmt::join(gone, "; ")));
}

// The command agent's ports that still accept connections. The holder is looked up before the
// probe connects: the probe must not be what changes the answer.
std::vector<OpenPort> open_ports(const CaseContext& ctx) {
  std::vector<OpenPort> out;
  for (const auto& [port, role] : ctx.ports) {
    const pid_t holder = port_holder(port);
    // Still listening on any address of the case's network (127.0.0.2, a LAN address inside
    // it), or answering on loopback.
    if (port_listening(port) || port_accepting(port)) out.push_back({port, holder, role});
  }
  return out;
}

// What the ledger recorded, once the kernel's signals sent so far have reached it.
void take_ledger(SignalEvidence& ledger, const Kill& kill, Evidence& out) {
  if (!ledger.sync_kernel(Clock::now() + kKernelSyncBound)) {
    out.missing_evidence.push_back(
        fmt::format("signals the kernel generated in the last {} ms, which did not arrive in time",
                    kKernelSyncBound.count()));
  }
  if (const uint64_t lost = ledger.kernel_lost(); lost > 0) {
    out.missing_evidence.push_back(fmt::format(
        "{} events of the kernel's signal trace, lost to its ring buffer overrunning", lost));
  }
  out.signals = ledger.records(kill.requested);
}

}  // namespace

Evidence collect_evidence(CaseContext& ctx, const Kill& kill) {
  require_no_unbidden_exit(ctx);
  Evidence out;
  out.open_ports = open_ports(ctx);
  if (ctx.signal_evidence) take_ledger(*ctx.signal_evidence, kill, out);
  return out;
}

void name_senders(std::vector<BystanderHit>& hits, const std::vector<SignalRecord>& signals) {
  for (BystanderHit& hit : hits) {
    if (hit.sender_pid != 0) continue;
    const auto sent = std::find_if(signals.begin(), signals.end(), [&](const SignalRecord& s) {
      const bool reached = std::any_of(s.reached.begin(), s.reached.end(),
                                       [&](const Party& p) { return p.pid == hit.pid; });
      return reached && s.signal != "0" && (hit.signal == "unknown" || hit.signal == s.signal);
    });
    if (sent == signals.end()) continue;
    hit.signal = sent->signal;
    hit.sender_pid = sent->sender.pid;
  }
}

std::vector<std::string> ended_on_their_own(std::vector<std::string> gone_before,
                                            const std::vector<std::string>& exited_unbidden) {
  for (const std::string& g : exited_unbidden) {
    // "role (pid N, exit status S)": listed once, when not already gone before the reaper.
    const std::string who = g.substr(0, g.find(','));
    if (std::none_of(gone_before.begin(), gone_before.end(),
                     [&](const std::string& x) { return x.rfind(who, 0) == 0; })) {
      gone_before.push_back(g);
    }
  }
  return gone_before;
}

}  // namespace reapcheck
