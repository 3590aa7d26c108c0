// The error of a command line or a configuration that cannot run: its own header, so that what
// checks a command line (selection.h) needs nothing else of the CLI.
#pragma once

#include <stdexcept>

namespace reapcheck {

// A configuration error: reported on one line, exit status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace reapcheck
