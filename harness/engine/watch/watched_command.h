// `reapcheck watch`'s host side: the sandbox its command runs in, and the command's output
// passed through as it comes.
#pragma once

#include <chrono>
#include <functional>
#include <string_view>

#include "harness/engine/case.h"
#include "harness/engine/watch/watch_body.h"

namespace reapcheck {

// Runs `scenario`'s command (a command_scenario()) in a sandbox of its own, over a copy-on-write
// view of its folder, for at most `timeout`; hands what it writes (stdout and stderr, in the
// order written) to `shown` as it comes. Throws Interrupted, with the sandbox ended, when the
// user interrupts it.
WatchObservation watch_in_sandbox(const Scenario& scenario, const CaseOptions& options,
                                  std::chrono::milliseconds timeout,
                                  const std::function<void(std::string_view)>& shown);

}  // namespace reapcheck
