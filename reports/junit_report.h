// junit.xml: one testsuite per reaper, one testcase per scenario (and run, under --repeat), the
// reaper's plain name (model/reaper_name.h) as suite name and classname. A deviation is a
// <failure>, or an <error> when the reaper or the harness could not do its part (setup-error,
// reaper-error, reaper-timeout); its message is the evidence in one line, its text the whole
// bounded evidence. <testsuites> carries the totals and the run's time. Valid against Jenkins
// xunit's junit-10.xsd and our own (reports/schema/), and against the Ant schema but for the
// attributes of <testsuites>, where it allows none.
#pragma once

#include <filesystem>
#include <string>

#include "harness/model/result.h"

namespace reapcheck {

std::string junit_xml(const RunResult& run);
void write_junit_report(const RunResult& run, const std::filesystem::path& file);

}  // namespace reapcheck
