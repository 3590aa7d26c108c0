// What `reapcheck watch` prints once the command has ended: for each test that left a process
// running or signalled one it never started, what it did, with the evidence; the clean tests in
// one line; the totals.
#pragma once

#include <string>
#include <vector>

#include "harness/model/result.h"

namespace reapcheck {

// `command`: the command as the user gave it; `status`: how it ended ("exited with status 0").
std::string watch_report(const std::vector<CaseResult>& parts, const std::string& command,
                         const std::string& status);

}  // namespace reapcheck
