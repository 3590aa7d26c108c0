// The part of a case that runs as PID 1 inside its sandbox (or, for `reproduce --no-sandbox`, on
// the host): stage the tree and its bystanders, have the reaper kill it, and observe. It
// records what it saw and never decides the verdict (judge.h does, from these observations).
#pragma once

#include <filesystem>

#include "harness/catalog/catalog.h"
#include "harness/engine/case.h"
#include "harness/model/result.h"
#include "harness/model/scenario.h"

namespace reapcheck {

// Everything the case observed, with tree_ms and kill_ms; a case that could not be staged has
// `blocked` set. `scratch` is an empty directory the case may fill.
CaseObservation observe_case(const Scenario& scenario, const ReaperChoice& reaper,
                             const CaseOptions& options, const std::filesystem::path& scratch);

}  // namespace reapcheck
