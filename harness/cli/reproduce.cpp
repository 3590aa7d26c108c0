// `reapcheck reproduce`: one case by hand (by default the npm dev-server leak under the process
// group kill), its leak shown the way a person reads it: the forest that survived and the ports
// still answering. --no-sandbox runs it on this machine, saying first what it will do.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "harness/cli/commands.h"
#include "harness/engine/case.h"
#include "harness/engine/fixture.h"
#include "harness/support/exit_status.h"
#include "harness/support/interrupt.h"
#include "reports/reproduce_report.h"

namespace reapcheck {
namespace {

struct ReproduceArgs {
  std::string scenario = "npm-dev-server";
  std::string reaper = "pgroup";
  bool no_sandbox = false;
  bool keep = false;
  Timing timing;  // --grace, --settle
};

void announce_host_run(const Scenario& scenario, const ReproduceArgs& args) {
  fmt::print(stderr,
             "reapcheck: --no-sandbox: scenario '{}' runs on THIS machine, not in a sandbox.\n"
             "  It starts the agent ({}) in a temporary worktree, lets reaper '{}' kill it,\n"
             "  and signals nothing but the processes it started, through pidfds.\n"
             "  {}\n",
             scenario.id,
             scenario.agent ? fmt::format("{}", fmt::join(scenario.agent->command, " "))
                            : "the fixture tree",
             args.reaper,
             args.keep ? "--keep: whatever survives is left running for you to inspect."
                       : "Whatever survives is killed afterwards (--keep leaves it running).");
}

void print_outcome(const CaseResult& c, const ScenarioNotes& notes, const ReproduceArgs& args,
                   const std::filesystem::path& kept) {
  fmt::print("{}", reproduce_report(c, &notes));
  if (!args.no_sandbox) {
    fmt::print("\nThe sandbox has ended: nothing above is still running.\n");
  } else if (args.keep) {
    std::vector<pid_t> pids;
    for (const auto& s : c.survivors) pids.push_back(s.pid);
    if (!pids.empty()) {
      fmt::print("\nLeft running (--keep); end them with: kill -9 {}\n", fmt::join(pids, " "));
    }
    fmt::print("The worktree they ran in is kept: {}\n", (kept / "worktree").string());
  } else {
    fmt::print("\nCleaned up: every process the reproduction started has been killed.\n");
  }
}

// --keep: a scratch directory that outlives the reproduction, for its worktree.
std::filesystem::path kept_scratch() {
  const char* tmp = std::getenv("TMPDIR");
  std::string dir =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/reapcheck-reproduce-XXXXXX";
  if (::mkdtemp(dir.data()) == nullptr) {
    throw UsageError(fmt::format("--keep: cannot create {}: {}", dir, std::strerror(errno)));
  }
  return dir;
}

int reproduce(const GlobalArgs& global, const ReproduceArgs& args) {
  const ScenarioSet set = load_inputs(global);
  const std::vector<Scenario> scenarios = select_scenarios(set, {args.scenario});
  const Scenario& scenario = scenarios.front();
  const std::string reaper = select_reapers({args.reaper}, false).front();
  if (auto missing = missing_interpreters(scenarios); !missing.empty()) throw UsageError(missing);
  CaseOptions options;
  args.timing.apply_to(options);
  options.on_host = args.no_sandbox;
  options.keep = args.keep;
  if (args.keep && !args.no_sandbox) {
    throw UsageError("--keep needs --no-sandbox: a sandbox's processes end with it");
  }
  if (args.no_sandbox) {
    if (auto refusal = host_run_refusal(scenario, reaper); !refusal.empty()) {
      throw UsageError("--no-sandbox: " + refusal);
    }
    announce_host_run(scenario, args);
    if (args.keep) options.scratch = kept_scratch();
  }
  watch_interrupts();
  fmt::print("Reproducing {} with {} ({})...\n", scenario.id, reaper,
             args.no_sandbox ? "on this machine" : "in a sandbox; pids are the sandbox's");
  const CaseResult c =
      run_case(make_job(scenario, reaper, set.expectations, /*expect_pass=*/false), options);
  const ScenarioNotes notes = notes_for({scenario}, set.expectations).at(scenario.id);
  print_outcome(c, notes, args, options.scratch);
  return c.as_expected() ? kExitOk : kExitDeviation;
}

}  // namespace

Command reproduce_command(CLI::App& app, const GlobalArgs& global) {
  auto args = std::make_shared<ReproduceArgs>();
  auto* cmd = app.add_subcommand(
      "reproduce",
      "Reproduce one scenario by hand (default: the npm dev-server leak) and show what "
      "leaked and which ports still answer");
  cmd->add_option("scenario", args->scenario, "Scenario id")
      ->type_name("SCENARIO")
      ->capture_default_str();
  cmd->add_option("--reaper", args->reaper, "Reaper id")->type_name("ID")->capture_default_str();
  cmd->add_flag("--no-sandbox", args->no_sandbox,
                "Run on this machine as a user would see it (built-in reapers and presets "
                "only; says what it will do first)");
  cmd->add_flag("--keep", args->keep,
                "With --no-sandbox: leave the survivors running, and keep the worktree they run "
                "in");
  add_timing_options(cmd, args->timing);
  return {cmd, [args, &global] { return reproduce(global, *args); }};
}

}  // namespace reapcheck
