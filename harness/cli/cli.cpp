#include "harness/cli/cli.h"

#include <fmt/format.h>

#include "harness/cli/commands.h"
#include "harness/model/toml_reader.h"
#include "harness/support/exit_status.h"
#include "harness/support/interrupt.h"
#include "harness/support/paths.h"

namespace reapcheck {

int run_cli(int argc, char** argv) {
  CLI::App app{
      "reapcheck: reproduces the ways a process tree escapes its reaper, runs reapers "
      "against them in sandboxes, and reports what survived and who was wrongly "
      "signalled.\n\nExit status: 0 every verdict equals its expectation; 1 a verdict "
      "differs or repeats disagree; 2 usage or configuration error; 130 interrupted."};
  app.require_subcommand(1);
  app.fallthrough();
  GlobalArgs global{default_scenarios_dir().string()};
  app.add_option("--scenarios", global.scenario_dir,
                 "Directory of scenario files, with the reapers' expectations in its "
                 "expectations/ folder")
      ->capture_default_str();
  const Command commands[] = {list_command(app, global), run_command(app, global),
                              reproduce_command(app, global), report_command(app, global),
                              bench_command(app, global)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }

  try {
    for (const Command& c : commands) {
      if (c.parser->parsed()) return c.run();
    }
    return kExitUsage;  // unreachable: a subcommand is required
  } catch (const InputError& e) {
    fmt::print(stderr, "reapcheck: {}\n", e.what());
    return kExitUsage;
  } catch (const UsageError& e) {
    fmt::print(stderr, "reapcheck: {}\n", e.what());
    return kExitUsage;
  } catch (const Interrupted& e) {
    fmt::print(stderr, "reapcheck: {}\n", e.what());
    return kExitInterrupted;
  }
}

}  // namespace reapcheck
