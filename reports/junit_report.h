// junit.xml: one testsuite per reaper, one testcase per scenario (and run, under --repeat).
// A failure's message is the evidence in one line (the headline CI tools show); its text the
// whole bounded evidence. Valid against Jenkins xunit's junit-10.xsd, the Ant schema and our own
// (reports/schema/).
#pragma once

#include <filesystem>
#include <string>

#include "harness/model/result.h"

namespace reapcheck {

std::string junit_xml(const RunResult& run);
void write_junit_report(const RunResult& run, const std::filesystem::path& file);

}  // namespace reapcheck
