// `reapcheck watch`, as PID 1 of its sandbox runs it: the user's command (a test suite) spawned as
// a case's agent is, beside the case's bystanders and under its signal ledger, and left to run to
// its end. Then every process it started that outlives it (a leak), and every signal its
// processes sent outside their own test, each put to the test whose process started it.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/engine/case.h"
#include "harness/model/result.h"
#include "harness/model/scenario.h"

namespace reapcheck {

// What one test (or, with an empty name, the command outside any test) was seen to do: its
// leaks as survivors, with the ports they hold; its signals, a signal reaching outside its
// test's lineage counting as a hit; its test's process as its one member.
struct WatchPart {
  std::string test;
  CaseObservation observed;
};

struct WatchObservation {
  int exit_code = -1;  // the command's exit status; -1 when a signal ended it
  int exit_signal = 0;
  double command_ms = 0;  // from its spawn to its exit
  // The command's own first (blocked when the command could not be run to its end), then the
  // tests in the order they started.
  std::vector<WatchPart> parts;
};

// Runs `scenario`'s command (a command_scenario()) in the sandbox this is PID 1 of, for at most
// `timeout`. Never throws for what the command does.
WatchObservation observe_watch(const Scenario& scenario, const CaseOptions& options,
                               const std::filesystem::path& scratch,
                               std::chrono::milliseconds timeout);

// The message PID 1 sends back, one line; and back (std::runtime_error when it is not one).
std::string write_watch_message(const WatchObservation& seen);
WatchObservation read_watch_message(std::string_view text);

}  // namespace reapcheck
