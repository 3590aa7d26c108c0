// Where the harness finds its scenarios, fixtures, helpers and interpreters. Nothing is baked in:
// everything is found relative to the running binary, so an installed copy works wherever its
// prefix is, and a build tree works the same way (the build puts share/reapcheck/ beside bin/,
// pointing at the source tree's scenarios/ and fixtures/).
//
//   PREFIX/bin/reapcheck
//   PREFIX/libexec/reapcheck/reapcheck-bystander, reapcheck-c-member
//   PREFIX/share/reapcheck/scenarios/ (expectations/ inside), PREFIX/share/reapcheck/fixtures/
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace reapcheck {

// PREFIX/share/reapcheck/scenarios and .../fixtures, unless REAPCHECK_SCENARIOS or
// REAPCHECK_FIXTURES say otherwise.
std::filesystem::path default_scenarios_dir();
std::filesystem::path fixtures_dir();

// A helper program: REAPCHECK_LIBEXEC/NAME when set, else beside the reapcheck binary (a build
// tree), else PREFIX/libexec/reapcheck/NAME (an installed copy).
std::string helper_path(const std::string& name);

// What a sandboxed case must still reach of the host, read-only: PREFIX (or the build tree), the
// fixtures and the folder holding them (in a build tree, the checkout), the scenarios, libexec
// and the working directory. Canonical; the ones that do not exist are left out.
std::vector<std::filesystem::path> harness_paths();

// The directories REAPCHECK_SHARE names (colon-separated), canonical: the only host paths a
// sandboxed case may write, for an exec: reaper that must leave something on the host (a test's
// marker file). Ones that are not directories are left out.
std::vector<std::filesystem::path> shared_paths();

// The absolute path of `program` found in PATH; empty when absent.
std::string find_in_path(const std::string& program);

}  // namespace reapcheck
