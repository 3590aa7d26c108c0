// reapcheck's exit statuses, documented in --help and the README.
#pragma once

namespace reapcheck {

enum Exit : int {
  kExitOk = 0,         // every verdict equals its expectation
  kExitDeviation = 1,  // some verdict differs, or repeats disagree
  kExitUsage = 2,      // bad arguments or configuration: unknown id, malformed input file
  kExitInterrupted = 130,
};

}  // namespace reapcheck
