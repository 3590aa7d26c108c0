#include "verdict.h"

#include <array>
#include <utility>

namespace reapcheck {
namespace {

constexpr std::array<std::pair<Verdict, std::string_view>, 7> kNames = {{
    {Verdict::pass, "pass"},
    {Verdict::leak, "leak"},
    {Verdict::bystander_hit, "bystander-hit"},
    {Verdict::reaper_error, "reaper-error"},
    {Verdict::reaper_timeout, "reaper-timeout"},
    {Verdict::setup_error, "setup-error"},
    {Verdict::skipped, "skipped"},
}};

}  // namespace

std::string_view to_string(Verdict v) {
  for (const auto& [verdict, name] : kNames) {
    if (verdict == v) return name;
  }
  return "?";
}

std::optional<Verdict> parse_verdict(std::string_view text) {
  for (const auto& [verdict, name] : kNames) {
    if (name == text) return verdict;
  }
  return std::nullopt;
}

std::string verdict_names() {
  std::string out;
  for (const auto& [verdict, name] : kNames) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

Verdict decide(const Evidence& e) {
  // Harm to a process outside the tree is never masked by the reaper's own failure.
  if (e.bystanders_hit > 0) return Verdict::bystander_hit;
  if (e.reaper_timed_out) return Verdict::reaper_timeout;
  if (e.reaper_failed) return Verdict::reaper_error;
  if (e.survivors > 0 || e.open_ports > 0) return Verdict::leak;
  return Verdict::pass;
}

bool meets_expectation(Verdict observed, Verdict expected) {
  return observed == Verdict::skipped || observed == expected;
}

}  // namespace reapcheck
