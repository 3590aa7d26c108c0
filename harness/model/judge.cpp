#include "harness/model/judge.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace reapcheck {
namespace {

std::string describe(const ProcessRecord& p) {
  return fmt::format("{} (pid {}, pgid {}, sid {}, state {}: {})", p.role, p.pid, p.pgid, p.sid,
                     p.state, p.command_line());
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
    for (const auto& s : seen.survivors) who.push_back(describe(s));
    parts.push_back(fmt::format("{} process(es) of the tree outlived the reaper by {} ms: {}",
                                seen.survivors.size(), seen.settle_ms, fmt::join(who, "; ")));
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

std::string hit_reason(const Observations& seen) {
  std::vector<std::string> hits;
  for (const auto& b : seen.bystanders_hit) hits.push_back(describe(b));
  std::string s = fmt::format("{} signal(s) reached bystanders: {}", seen.bystanders_hit.size(),
                              fmt::join(hits, "; "));
  if (!seen.survivors.empty()) {
    s += fmt::format("; and {} member(s) survived", seen.survivors.size());
  }
  return s;
}

std::string unopened_race_reason(const RaceRecord& race) {
  if (race.attempts > 1) {
    return fmt::format("the race window never opened in {} attempts; the last: {}", race.attempts,
                       race.detail);
  }
  return "the race window never opened: " + race.detail;
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
  if (!seen.bystanders_hit.empty()) return {Verdict::bystander_hit, hit_reason(seen)};
  switch (seen.reaper_outcome.status) {
    case ReaperOutcome::Status::timed_out:
      return {Verdict::reaper_timeout, seen.reaper_outcome.message};
    case ReaperOutcome::Status::failed:
      return {Verdict::reaper_error, seen.reaper_outcome.message};
    case ReaperOutcome::Status::done:
      break;
  }
  if (!seen.survivors.empty() || !seen.open_ports.empty()) {
    return {Verdict::leak, leak_reason(seen)};
  }
  if (seen.race && !seen.race->opened) return {Verdict::skipped, unopened_race_reason(*seen.race)};
  return {Verdict::pass, fmt::format("all {} members dead {} ms after the kill request",
                                     seen.members.size(), static_cast<long>(seen.all_dead_ms))};
}

}  // namespace reapcheck
