// Where the harness finds its scenarios, fixtures and interpreters.
#pragma once

#include <filesystem>
#include <string>

namespace reapcheck {

// The source tree's scenarios/ and fixtures/, unless REAPCHECK_SCENARIOS or REAPCHECK_FIXTURES
// say otherwise (for an installed or relocated copy).
std::filesystem::path default_scenarios_dir();
std::filesystem::path fixtures_dir();

// A helper program built beside the reapcheck binary (REAPCHECK_LIBEXEC overrides the folder).
std::string helper_path(const std::string& name);

// The absolute path of `program` found in PATH; empty when absent.
std::string find_in_path(const std::string& program);

}  // namespace reapcheck
