// The built-in matrix as CTest runs it — `ctest -L matrix`, one reapcheck process per scenario —
// timed in the build tree that holds this reapcheck, for the target that sets it against
// `reapcheck run` over the same cells.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "harness/support/layout.h"

namespace reapcheck {

struct CtestTiming {
  std::optional<double> wall_s;  // empty when not measured
  int status = 0;                // ctest's exit status: 0 when every matrix test passed
  std::string why_not;           // why it was not measured
};

// Runs `ctest --test-dir BUILD -j JOBS -L matrix` with its output in `log`. Not measured outside
// a build tree (an installed reapcheck has no CTest tests) or without ctest. On an interrupt it
// ends ctest and the tests it started, removes what they left, then throws Interrupted. ctest is
// found, and what is left removed, through `layout`.
CtestTiming time_ctest_matrix(int jobs, const std::filesystem::path& log, const Layout& layout);

}  // namespace reapcheck
