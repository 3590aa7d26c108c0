#include "harness/model/result.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "harness/model/cut.h"

namespace reapcheck {

ReasonParts split_output(std::string_view reason) {
  for (const std::string_view mark : {kOutputEndMark, kFixtureLogMark}) {
    if (const size_t at = reason.find(mark); at != std::string_view::npos) {
      return {reason.substr(0, at), mark, reason.substr(at + mark.size())};
    }
  }
  return {reason, {}, {}};
}

std::string fitted_reason(std::string_view reason, size_t width) {
  const ReasonParts parts = split_output(reason);
  return parts.mark.empty() ? cut(reason, width) : cut_keeping_end(reason, parts.mark, width);
}

std::string ReaperOutcome::supervisor_killed() const {
  if (supervisor_killed_after_ms < 0) return {};
  return fmt::format("the supervisor was SIGKILLed at the end of the {} ms grace period (--grace)",
                     supervisor_killed_after_ms);
}

std::string ProcessRecord::command_line() const {
  return fmt::format("{}", fmt::join(argv, " "));
}

std::string_view to_string(Party::Kind kind) {
  switch (kind) {
    case Party::Kind::member:
      return "member";
    case Party::Kind::tree:
      return "tree";
    case Party::Kind::reaper:
      return "reaper";
    case Party::Kind::bystander:
      return "bystander";
    case Party::Kind::harness:
      return "harness";
  }
  return "?";
}

std::string Party::label() const {
  return fmt::format("{} {} (pid {}{})", to_string(kind), role, pid, alive ? "" : ", dead");
}

bool SignalRecord::stray() const {
  return counts() && !by_pidfd && !pinned && !kernel &&
         std::none_of(reached.begin(), reached.end(), [](const Party& p) { return p.alive; });
}

std::string SignalRecord::sender_text(std::string_view reaper, size_t argv_width) const {
  if (from_reaper_host()) {
    return fmt::format("reaper {} (pid {})", reaper.empty() ? "host" : reaper, sender.pid);
  }
  return fmt::format("{} [{}]", sender.label(),
                     cut(fmt::format("{}", fmt::join(sender_argv, " ")), argv_width));
}

std::string SignalRecord::summary(size_t argv_width, std::string_view reaper) const {
  std::vector<std::string> to;
  to.reserve(reached.size());
  for (const auto& p : reached) to.push_back(p.label());
  return fmt::format("{:+.1f} ms {} {}({}, {}) → {}: {}", at_ms, sender_text(reaper, argv_width),
                     call, target, signal,
                     to.empty() ? "nothing there" : fmt::format("{}", fmt::join(to, ", ")), result);
}

bool SignalRecord::hit_outside() const {
  return counts() && std::any_of(reached.begin(), reached.end(), [](const Party& p) {
           return p.kind == Party::Kind::bystander || p.kind == Party::Kind::harness;
         });
}

std::string BystanderHit::sender() const {
  if (sender_pid != 0) return "from pid " + std::to_string(sender_pid);
  if (signal == "unknown") return "(it died; not the harness's child, so how is not seen)";
  if (signal == "frozen") return "(no signal: its cgroup was frozen, and left so)";
  if (signal.rfind("exit(", 0) == 0) {
    return "(no signal: it never exits by itself, so something acting on it made it exit)";
  }
  if (signal.find(" changed: ") != std::string::npos) {
    return "(no signal: an attribute of it was changed, and left so)";
  }
  if (signal == "SIGKILL" || signal == "SIGSTOP")
    return "sender unknown: " + signal + " cannot be caught";
  return "from the kernel";
}

std::string incompleteness(const RunResult& run) {
  if (run.never_run <= 0) return {};
  return fmt::format("the run is incomplete: {} of its {} case(s) never ran ({})", run.never_run,
                     run.never_run + run.cases.size(),
                     run.stopped.empty()
                         ? "it was interrupted, or killed and recovered from its journal"
                         : run.stopped);
}

}  // namespace reapcheck
