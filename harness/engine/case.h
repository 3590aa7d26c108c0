// One case: one scenario run against one reaper, in a sandbox of its own.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "harness/model/expectations.h"
#include "harness/model/result.h"
#include "harness/model/scenario.h"
#include "harness/support/layout.h"

namespace reapcheck {

// What to run, and what it is expected to give.
struct CaseJob {
  const Scenario* scenario = nullptr;
  std::string reaper;
  int run = 1;                // 1-based index under --repeat
  Expectation expected;       // pass, or the reaper's declared weakness
  std::string declared_skip;  // why the reaper's expectations say it cannot apply; empty if it can
};

// The job for `scenario` × `reaper` as `book` declares it (pass everywhere with `expect_pass`).
CaseJob make_job(const Scenario& scenario, std::string reaper, const ExpectationBook& book,
                 bool expect_pass, int run = 1);

// A case run on this machine: the audit looks only at the tree's sessions, and what survives is
// killed afterwards unless `keep`.
struct HostRun {
  bool keep = false;
  // The directory the case works in (its worktree is scratch/worktree), which the caller owns
  // and may keep; empty: a fresh one, removed afterwards.
  std::filesystem::path scratch;
};

struct CaseOptions {
  std::chrono::milliseconds grace{300};    // what the reaper gives members after SIGTERM
  std::chrono::milliseconds settle{1000};  // how long members may take to die after the reaper
  std::chrono::milliseconds ready{
      10000};  // how long the fixture may go without announcing a member
  // On top of the grace period, for the smallest tree; reaper_allowance() adds to it per member.
  std::chrono::milliseconds reaper_deadline{10000};
  std::string cgroup_parent;  // where the cgroup reaper makes its groups; empty: its own cgroup
  bool ledger = true;         // record every signal of the reaper's side (signal_ledger.h)
  // Outside any sandbox, on this machine (reapcheck reproduce --no-sandbox); empty: in a sandbox
  // of its own. placement.h says what that changes.
  std::optional<HostRun> on_host;
  // The PATH an observed agent (a project's own command) runs with: the invoking user's, so that
  // the command runs as it does for them; empty: the case's standard PATH.
  std::string agent_path;
  // Where reapcheck's files, the host's programs and the scratch space are; the CLI's, from its
  // environment (default: the running binary's, nothing overridden).
  Layout layout = Layout::of_running_binary();
  // Take and leave a kept tracing instance (run --keep-trace; kernel_signal_trace.h).
  bool keep_trace = false;
  // The most memory a sandboxed case may use, its tmpfs mounts' contents included, in bytes
  // (run --memory-max); 0: the default, a quarter of the host's (memory_bound.h).
  std::uint64_t memory_max = 0;
  // `reapcheck watch`: where an observed agent writes its stdout and stderr, passed through to
  // the user as it comes; -1: the case's log, as for every other case.
  int command_output_fd = -1;
  // `reapcheck watch`: what an observed agent gets of its user's environment beyond PATH, as
  // "NAME=DIR" (toolchain homes, cli/environment.h); each DIR is put back, read-only, in the
  // sandbox, as PATH's folders are.
  std::vector<std::string> agent_homes;
};

// How long past the grace period the reaper may take on a tree of `members` before the case
// runner gives up on it: options.reaper_deadline, and 20 ms more per member. A reaper that visits
// each process (a ps per pid, each signal held by the ledger until its target settles) takes
// time in proportion to the tree, more so on a loaded machine; a hung one still times out.
// External commands get half of it (ReaperConfig::hung_after), so that their own deadline ends
// them, with their stderr kept, before the runner gives up on the reaper host.
std::chrono::milliseconds reaper_allowance(const CaseOptions& options, int members);

// Runs the case and returns its result, judged and compared with its expectation. Never throws
// for what happens inside the sandbox: failures become setup-error, reaper-error or
// reaper-timeout. Throws Interrupted when the user interrupts the run.
CaseResult run_case(const CaseJob& job, const CaseOptions& options);

// Gives `observed` its identity (scenario, reaper, run, tags), its expectation and its verdict,
// judged from its observations. Every result, however it was produced, passes through here.
CaseResult complete_case(const CaseJob& job, CaseObservation observed);

// Why a case cannot run outside the sandbox (a PID race, a command given by the user), or empty.
std::string host_run_refusal(const Scenario& scenario, std::string_view reaper_id);

}  // namespace reapcheck
