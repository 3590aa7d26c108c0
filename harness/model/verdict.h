// The verdicts a case can reach, and how an observed verdict compares with the expected one.
// judge.h decides which one a case gets.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace reapcheck {

// In order of severity, worst first, among those a reaper can earn: when the evidence supports
// several, the case gets the first (judge.h). setup-error and skipped say the reaper was never
// judged.
enum class Verdict {
  bystander_hit,   // a process outside the tree received a signal from the reaper's side
  reaper_timeout,  // the reaper did not report back within its deadline
  reaper_error,    // the reaper failed: threw, crashed, or could not start
  leak,            // a member outlived the reaper and the settle deadline, or a port still answers
  stray_signal,    // a signal went to a pid or group where nothing was: the latent pid-reuse race
  late,            // a member was alive, and not dying, when the reaper reported done, or a port
                   // of the tree could not be bound again then (the restart check)
  pass,            // every member dead, no bystander signalled
  setup_error,     // the harness could not build the case (fixture failed, sandbox refused)
  skipped,         // the case cannot run here or does not apply; the reason says why
};

std::string_view to_string(Verdict v);
std::optional<Verdict> parse_verdict(std::string_view text);

// A verdict a reaper's expectations may declare as a known weakness: one it earned by what it
// did (not pass, and not the harness's own setup-error or skipped).
bool is_weakness(Verdict v);
std::vector<std::string_view> weakness_verdict_names();

// A case counts as expected when its verdict equals the expectation. A skipped case is neither
// a failure nor a pass: it never makes a run fail, and is reported as skipped.
bool meets_expectation(Verdict observed, Verdict expected);

// `observed` is the declared verdict or one of the weakness's other forms (`also`).
bool is_declared_form(Verdict observed, Verdict expected, const std::vector<Verdict>& also);

// Each verdict's name, in order.
std::vector<std::string> verdict_names(const std::vector<Verdict>& verdicts);

// What a case is expected to earn, for people: "leak", or "leak or late" where the weakness
// has other forms.
std::string expected_text(Verdict expected, const std::vector<Verdict>& also);

}  // namespace reapcheck
