// The command line: `reapcheck list`, `run`, `reproduce`, `report` and `bench`.
#pragma once

namespace reapcheck {

// Exit statuses, documented in --help.
enum Exit : int {
  kExitOk = 0,         // every verdict equals its expectation
  kExitDeviation = 1,  // some verdict differs, or repeats disagree
  kExitUsage = 2,      // bad arguments or configuration: unknown id, malformed scenario file
  kExitInterrupted = 130,
};

int run_cli(int argc, char** argv);

}  // namespace reapcheck
