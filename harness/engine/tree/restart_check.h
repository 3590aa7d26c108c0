// The restart check: right after the reaper returns, each port the tree listened on is bound
// again, as a dev server restarted at that moment binds it. EADDRINUSE is evidence that the
// reaper reported done while the tree still held the port.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "harness/model/result.h"

namespace reapcheck {

// Binds 127.0.0.1:port for each of `ports` (port → the role that listened there) with
// SO_REUSEADDR, as node and most servers do, and lets it go at once. Every process that is
// already dying (a fatal signal pending, or exiting) first gets until `deadline` to finish: a
// holder among them releases the port within a moment, and whether the bind came before that
// would be up to the scheduler.
std::vector<RebindFailure> rebind_ports(const std::vector<std::pair<int, std::string>>& ports,
                                        std::chrono::steady_clock::time_point deadline);

}  // namespace reapcheck
