// junit.xml: one testsuite per reaper, one testcase per scenario (and run, under --repeat).
// The evidence goes in the failure *text*, which CI servers show; most ignore the message.
#pragma once

#include <filesystem>
#include <string>

#include "harness/model/result.h"

namespace reapcheck {

std::string junit_xml(const RunResult& run);
void write_junit_report(const RunResult& run, const std::filesystem::path& file);

}  // namespace reapcheck
