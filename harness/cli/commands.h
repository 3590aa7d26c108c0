// The subcommands, one file each. Each registers its options on `app` and returns what runs it.
#pragma once

#include "harness/cli/common.h"

namespace reapcheck {

Command list_command(CLI::App& app, const GlobalArgs& global);
Command run_command(CLI::App& app, const GlobalArgs& global);
Command reproduce_command(CLI::App& app, const GlobalArgs& global);
Command report_command(CLI::App& app, const GlobalArgs& global);
Command bench_command(CLI::App& app, const GlobalArgs& global);
Command clean_command(CLI::App& app, const GlobalArgs& global);
Command watch_command(CLI::App& app, const GlobalArgs& global);

}  // namespace reapcheck
