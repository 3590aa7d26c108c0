// What reapcheck takes from its environment, all of it read here, once, as the command line is
// parsed: below the CLI these reach code only as values (harness/support/layout.h), and
// scripts/check-layers fails when anything else reads a variable.
//
//   REAPCHECK_SCENARIOS  the scenarios' folder (the default of --scenarios)
//   REAPCHECK_FIXTURES   the fixtures' folder
//   REAPCHECK_LIBEXEC    the helper programs' folder (reapcheck-bystander, reapcheck-c-member)
//   REAPCHECK_SHARE      host folders a sandboxed case may write, colon-separated
//   PATH                 where programs are found, and what an observed agent runs with
//   TMPDIR               where each case's scratch directory goes (default /tmp)
//   NO_COLOR, FORCE_COLOR  colour on the terminal under --color auto
//   HOME, RUSTUP_HOME, CARGO_HOME  the toolchain homes `watch` hands its command
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/support/layout.h"

namespace reapcheck {

// The running binary's layout with what the environment overrides.
Layout layout_from_environment();

// Colour as NO_COLOR (set and not empty: none) and FORCE_COLOR (set, neither empty nor 0: colour)
// ask for it; nullopt when neither does.
std::optional<bool> colour_from_environment();

// The toolchains' homes a test suite finds through its user's home, as "NAME=DIR" for each that
// exists: RUSTUP_HOME and CARGO_HOME (default ~/.rustup and ~/.cargo). `watch` hands them to its
// command, whose own home is a fresh one: rustup's cargo cannot choose a toolchain without them.
std::vector<std::string> toolchain_homes();

}  // namespace reapcheck
