// What a case concluded, and how an observed verdict compares with the expected one.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace reapcheck {

enum class Verdict {
  pass,            // every member dead, no bystander signalled
  leak,            // a member outlived the reaper and the settle deadline
  bystander_hit,   // a process outside the tree received a signal from the reaper's side
  reaper_error,    // the reaper failed: threw, crashed, or could not start
  reaper_timeout,  // the reaper did not report back within its deadline
  setup_error,     // the harness could not build the case (fixture failed, sandbox refused)
  skipped,         // the environment cannot run this case; the reason says why
};

std::string_view to_string(Verdict v);
std::optional<Verdict> parse_verdict(std::string_view text);

// All verdict names, for error messages that list the valid ones.
std::string verdict_names();

// The most severe verdict the evidence supports: bystander-hit, then reaper-timeout,
// reaper-error, leak. A reaper that both failed and hit a bystander is reported as
// bystander-hit, with everything else still listed.
struct Evidence {
  bool reaper_timed_out = false;
  bool reaper_failed = false;
  int bystanders_hit = 0;
  int survivors = 0;
  int open_ports = 0;  // ports the tree listened on that still accept connections
};
Verdict decide(const Evidence& e);

// A case counts as expected when its verdict equals the expectation. A skipped case is neither
// a failure nor a pass: it never makes a run fail, and is reported as skipped.
bool meets_expectation(Verdict observed, Verdict expected);

}  // namespace reapcheck
