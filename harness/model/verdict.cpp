#include "harness/model/verdict.h"

#include <algorithm>
#include <array>
#include <utility>

namespace reapcheck {
namespace {

constexpr std::array<std::pair<Verdict, std::string_view>, 9> kNames = {{
    {Verdict::bystander_hit, "bystander-hit"},
    {Verdict::reaper_timeout, "reaper-timeout"},
    {Verdict::reaper_error, "reaper-error"},
    {Verdict::leak, "leak"},
    {Verdict::stray_signal, "stray-signal"},
    {Verdict::late, "late"},
    {Verdict::pass, "pass"},
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

bool is_weakness(Verdict v) {
  return v != Verdict::pass && v != Verdict::setup_error && v != Verdict::skipped;
}

std::vector<std::string_view> weakness_verdict_names() {
  std::vector<std::string_view> out;
  for (const auto& [verdict, name] : kNames) {
    if (is_weakness(verdict)) out.push_back(name);
  }
  return out;
}

std::vector<std::string> verdict_names(const std::vector<Verdict>& verdicts) {
  std::vector<std::string> out;
  out.reserve(verdicts.size());
  for (Verdict v : verdicts) out.emplace_back(to_string(v));
  return out;
}

std::string expected_text(Verdict expected, const std::vector<Verdict>& also) {
  std::string text(to_string(expected));
  for (Verdict v : also) text.append(" or ").append(to_string(v));
  return text;
}

bool is_declared_form(Verdict observed, Verdict expected, const std::vector<Verdict>& also) {
  return observed == expected || std::find(also.begin(), also.end(), observed) != also.end();
}

bool meets_expectation(Verdict observed, Verdict expected) {
  return observed == Verdict::skipped || observed == expected;
}

}  // namespace reapcheck
