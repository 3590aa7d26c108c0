// The command line: `reapcheck list`, `run`, `reproduce`, `report` and `bench`.
#pragma once

namespace reapcheck {

// Parses the command line, runs the subcommand, and returns the exit status (exit_status.h).
int run_cli(int argc, char** argv);

}  // namespace reapcheck
