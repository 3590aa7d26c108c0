#include "harness/model/judge.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace reapcheck {
namespace {

std::string describe(const ProcessRecord& p) {
  std::string s = fmt::format("{} (pid {}, pgid {}, sid {}, state {}: {})", p.role, p.pid, p.pgid,
                              p.sid, p.state, p.command_line());
  if (!p.escape.empty()) s += ", " + p.escape;
  if (!p.started_by.empty()) s += fmt::format(", started by {}", fmt::join(p.started_by, " ← "));
  return s;
}

std::string describe(const BystanderHit& b) {
  return fmt::format("{} (pid {}) got {} {}", b.role, b.pid, b.signal, b.sender());
}

std::string describe(const OpenPort& p) {
  return fmt::format("port {} ({}) still accepting, held by {}", p.port, p.role,
                     p.pid != 0 ? fmt::format("pid {}", p.pid) : "an unknown process");
}

std::string leak_reason(const Observations& seen) {
  std::vector<std::string> parts;
  for (const auto& p : seen.open_ports) parts.push_back(describe(p));
  if (!seen.survivors.empty()) {
    std::vector<std::string> who;
    for (const auto& s : seen.survivors) {
      const bool ended = std::find(seen.ended_by_harness.begin(), seen.ended_by_harness.end(),
                                   s.pid) != seen.ended_by_harness.end();
      who.push_back(describe(s) + (ended ? ", never reached by the reaper: the harness ended it "
                                           "after the race, to free the recycled id"
                                         : ""));
    }
    parts.push_back(fmt::format(
        "{} process(es) of the tree outlived the reaper ({}): {}", seen.survivors.size(),
        seen.watched_ms < seen.settle_ms
            ? fmt::format("alive and idle {:.0f} ms after it returned, with nothing left that "
                          "could end them",
                          seen.watched_ms)
        : seen.busy_at_bound
            ? fmt::format("still running or dying {:.0f} ms after it returned, when the wait "
                          "for them ended: --settle {} and {} s more",
                          seen.watched_ms, seen.settle_ms, kDyingBoundSeconds)
            : fmt::format("alive and idle at the settle bound, {} ms after it returned "
                          "(--settle)",
                          seen.settle_ms),
        fmt::join(who, "; ")));
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

// The ledger's records that `pick` selects, each on its own.
template <typename Pick>
std::vector<std::string> records(const Observations& seen, Pick pick) {
  std::vector<std::string> out;
  for (const auto& r : seen.signals) {
    if (pick(r)) out.push_back(r.summary());
  }
  return out;
}

std::string hit_reason(const Observations& seen) {
  std::vector<std::string> parts;
  const auto sent = records(seen, [](const SignalRecord& r) { return r.hit_outside(); });
  if (!sent.empty()) {
    parts.push_back(fmt::format("the reaper's side signalled {} time(s) outside the tree: {}",
                                sent.size(), fmt::join(sent, "; ")));
  }
  if (!seen.bystanders_hit.empty()) {
    std::vector<std::string> hits;
    for (const auto& b : seen.bystanders_hit) hits.push_back(describe(b));
    parts.push_back(fmt::format("{} hit(s) on bystanders: {}", seen.bystanders_hit.size(),
                                fmt::join(hits, "; ")));
  }
  if (!seen.survivors.empty()) {
    parts.push_back(fmt::format("and {} member(s) survived", seen.survivors.size()));
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

std::string stray_reason(const std::vector<std::string>& strays) {
  return fmt::format(
      "{} signal(s) went to a pid or group where nothing was, which a recycled id would "
      "receive: {}",
      strays.size(), fmt::join(strays, "; "));
}

std::string describe(const RebindFailure& f) {
  return fmt::format("port {} ({}) could not be bound again: {}{}", f.port, f.role, f.error,
                     f.holder != 0 ? fmt::format(", still held by pid {}", f.holder) : "");
}

std::string late_reason(const Observations& seen) {
  std::vector<std::string> parts;
  if (!seen.late.empty()) {
    std::vector<std::string> who;
    for (const auto& l : seen.late) {
      if (l.on_its_own) {
        who.push_back(
            fmt::format("{} exited by itself before the return, never signalled by the "
                        "reaper (a slower machine ends it after)",
                        describe(l.process)));
      } else {
        who.push_back(l.died_after_ms >= 0 ? fmt::format("{} died {:.0f} ms after",
                                                         describe(l.process), l.died_after_ms)
                                           : describe(l.process));
      }
    }
    parts.push_back(
        fmt::format("{} member(s) alive and not dying when the reaper reported done: {}",
                    seen.late.size(), fmt::join(who, "; ")));
  }
  if (!seen.rebind_failures.empty()) {
    std::vector<std::string> ports;
    for (const auto& f : seen.rebind_failures) ports.push_back(describe(f));
    parts.push_back(fmt::format(
        "right after the reaper returned, a restarting dev server could not bind its port: {}",
        fmt::join(ports, "; ")));
  }
  std::string s = fmt::format("{}", fmt::join(parts, "; "));
  if (!seen.reaper_left_running.empty()) {
    std::vector<std::string> left;
    for (const auto& p : seen.reaper_left_running) left.push_back(describe(p));
    s += fmt::format("; the reaper left running: {}", fmt::join(left, "; "));
  }
  return s;
}

// What the case could not see, said wherever it passes.
std::string with_gaps(std::string reason, const Observations& seen) {
  if (seen.missing_evidence.empty()) return reason;
  return fmt::format("{} (without: {})", reason, fmt::join(seen.missing_evidence, "; "));
}

std::string unopened_race_reason(const RaceRecord& race) {
  if (race.attempts > 1) {
    return fmt::format("the race window never opened in {} attempts; the last: {}", race.attempts,
                       race.detail);
  }
  return "the race window never opened: " + race.detail;
}

// A failing verdict's reason, led by what a supervise: reaper's supervisor came to when it was
// SIGKILLed after the grace period: the cause the reader looks for first (what it supervised,
// orphaned, was never signalled by it).
Judgement with_supervisor(Judgement j, const Observations& seen) {
  const std::string killed = seen.reaper_outcome.supervisor_killed();
  if (!killed.empty()) j.reason = killed + "; " + j.reason;
  return j;
}

}  // namespace

Judgement judge(const Observations& seen) {
  if (seen.blocked) {
    switch (seen.blocked->kind) {
      case Blocker::Kind::declared_skip:
        return {Verdict::skipped, "declared not applicable: " + seen.blocked->reason};
      case Blocker::Kind::unsupported:
        return {Verdict::skipped, seen.blocked->reason};
      case Blocker::Kind::setup_failed:
        return {Verdict::setup_error, seen.blocked->reason};
    }
  }
  // Harm to a process outside the tree is never masked by the reaper's own failure.
  const bool hit = !seen.bystanders_hit.empty() ||
                   std::any_of(seen.signals.begin(), seen.signals.end(),
                               [](const SignalRecord& r) { return r.hit_outside(); });
  if (hit) return with_supervisor({Verdict::bystander_hit, hit_reason(seen)}, seen);
  switch (seen.reaper_outcome.status) {
    case ReaperOutcome::Status::timed_out:
      return {Verdict::reaper_timeout, seen.reaper_outcome.message};
    case ReaperOutcome::Status::failed:
      return {Verdict::reaper_error, seen.reaper_outcome.message};
    case ReaperOutcome::Status::done:
      break;
  }
  if (!seen.survivors.empty() || !seen.open_ports.empty()) {
    return with_supervisor({Verdict::leak, leak_reason(seen)}, seen);
  }
  if (const auto strays = records(seen, [](const SignalRecord& r) { return r.stray(); });
      !strays.empty()) {
    return with_supervisor({Verdict::stray_signal, stray_reason(strays)}, seen);
  }
  if (!seen.late.empty() || !seen.rebind_failures.empty()) {
    return with_supervisor({Verdict::late, late_reason(seen)}, seen);
  }
  if (seen.race && !seen.race->opened) return {Verdict::skipped, unopened_race_reason(*seen.race)};
  return {Verdict::pass,
          with_gaps(fmt::format("all {} members dead {} ms after the kill request",
                                seen.members.size(), static_cast<long>(seen.all_dead_ms)),
                    seen)};
}

}  // namespace reapcheck
