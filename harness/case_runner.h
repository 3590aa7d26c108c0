// One case: one scenario run against one reaper, in a sandbox of its own.
#pragma once

#include <chrono>

#include "result.h"
#include "scenario.h"

namespace reapcheck {

struct CaseOptions {
  std::chrono::milliseconds grace{300};  // what the reaper gives members after SIGTERM
  std::chrono::milliseconds settle{
      1000};  // how long members may take to die after the reaper returns
  std::chrono::milliseconds ready{10000};  // how long the fixture may take to announce its tree
  std::chrono::milliseconds reaper_deadline{10000};  // on top of the grace period
  bool expect_pass = false;  // ignore declared weaknesses: a CI gate expects pass everywhere
  // Outside any sandbox, on the real host (reapcheck reproduce --no-sandbox): the audit looks
  // only at the tree's sessions, and what survives is killed afterwards unless `keep`.
  bool on_host = false;
  bool keep = false;
};

// Runs the case and returns its result, verdict and expectation filled in. Never throws for
// what happens inside the sandbox: failures become setup-error, reaper-error or reaper-timeout.
// Throws Interrupted when the user interrupts the run.
CaseResult run_case(const Scenario& scenario, std::string_view reaper_id,
                    const CaseOptions& options);

// Why a case cannot run outside the sandbox (a PID race, an external command), or empty.
std::string host_run_refusal(const Scenario& scenario, std::string_view reaper_id);

}  // namespace reapcheck
