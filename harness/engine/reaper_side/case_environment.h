// The environment a case's reaper and tree run in, as the scenario's [case] table sets it: the
// PATH (a machine without procps's ps, or with busybox's), and the signals the agent's launcher
// hands down blocked.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "harness/model/scenario.h"
#include "harness/support/layout.h"

namespace reapcheck {

// The PATH every case runs with unless its scenario says otherwise.
inline constexpr const char* kStandardPath = "/usr/local/bin:/usr/bin:/bin";

// The PATH for `path`, building under `scratch` what it needs: for without-ps, a directory of
// links to every program of the standard PATH (and /usr/sbin, /sbin) but ps; for busybox-ps, a
// directory holding ps as busybox (found in layout.search_path), ahead of the standard PATH.
std::string case_path(CaseSetup::Path path, const std::filesystem::path& scratch,
                      const Layout& layout);

// Why this machine cannot give the case its environment (busybox is not installed), or empty.
std::string missing_environment(const CaseSetup& setup, const Layout& layout);

// The signal numbers of names such as "TERM".
std::vector<int> signal_numbers(const std::vector<std::string>& names);

}  // namespace reapcheck
