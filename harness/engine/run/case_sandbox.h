// A case's way into its sandbox and back: what PID 1 runs, the options the sandbox is made
// with, how long it may take, and the observation read from its message. The case runner makes a
// sandbox per case; a case series makes each one ahead (case_series.h).
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "harness/catalog/catalog.h"
#include "harness/engine/case.h"
#include "harness/sandbox/sandbox.h"

namespace reapcheck {

// The backstop against a case that hangs.
std::chrono::milliseconds sandbox_deadline(const Scenario& scenario, const CaseOptions& options);

// What PID 1 runs: the case, its observation as the message for `job`.
std::string observe_inside(size_t job, const Scenario& scenario, const ReaperChoice& reaper,
                           const CaseOptions& options, const std::filesystem::path& scratch);

// The project folders the jobs' observed agents run in: every sandbox of a series lays them all,
// since it is made before it knows its case.
std::vector<std::filesystem::path> projects_of(std::span<const CaseJob> jobs);

SandboxOptions sandbox_options(const CaseOptions& options, const std::filesystem::path& scratch,
                               std::chrono::milliseconds deadline,
                               std::vector<std::filesystem::path> projects);

// The case's observation from what its sandbox gave back for `job`; the time since `started` not
// spent in the case's own phases is the sandbox's.
CaseObservation observation_of(const SandboxOutcome& outcome, size_t job,
                               std::chrono::steady_clock::time_point started);

// `job` in a sandbox made for it.
CaseObservation observe_sandboxed(const CaseJob& job, const ReaperChoice& reaper,
                                  const CaseOptions& options);

}  // namespace reapcheck
