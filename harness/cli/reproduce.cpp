// `reapcheck reproduce`: a leak by hand, shown the way a person reads it: the forest that survived
// and the ports still answering. Either one scenario (by default the npm dev-server leak under
// the process group kill; --no-sandbox runs it on this machine, saying first what it will do), or
// a command of the user's (`-- CMD`), run in their folder under each reaper, with what passed in
// this run and what to change.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "harness/cli/commands.h"
#include "harness/engine/case.h"
#include "harness/engine/run/matrix.h"
#include "harness/engine/tree/fixture.h"
#include "harness/model/cut.h"
#include "harness/model/reaper_name.h"
#include "harness/model/text.h"
#include "harness/support/exit_status.h"
#include "harness/support/interrupt.h"
#include "reports/evidence.h"
#include "reports/reproduce_report.h"

namespace reapcheck {
namespace {

struct ReproduceArgs {
  std::vector<std::string> words;  // the scenario id, or (without `--`) a command typed wrongly
  std::vector<std::string> reapers;
  std::string dir;
  AgentReady ready;
  int ready_timeout_ms = 0;
  bool no_sandbox = false;
  bool keep = false;
  Timing timing;  // --grace, --settle
  CaseBase base;  // --keep-trace
};

void announce_host_run(const Scenario& scenario, const std::string& reaper,
                       const ReproduceArgs& args) {
  fmt::print(stderr,
             "reapcheck: --no-sandbox: scenario '{}' runs on THIS machine, not in a sandbox.\n"
             "  It starts the agent ({}) in a temporary worktree, lets reaper '{}' kill it,\n"
             "  and signals nothing but the processes it started, through pidfds.\n"
             "  {}\n",
             scenario.id,
             scenario.agent ? fmt::format("{}", fmt::join(scenario.agent->command, " "))
                            : "the fixture tree",
             reaper,
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
std::filesystem::path kept_scratch(const Layout& layout) {
  std::string dir = (layout.temp / "reapcheck-reproduce-XXXXXX").string();
  if (::mkdtemp(dir.data()) == nullptr) {
    throw UsageError(fmt::format("--keep: cannot create {}: {}", dir, std::strerror(errno)));
  }
  return dir;
}

// `scenario` under each of `reapers`, one case at a time (in the run's own cgroup area, which the
// cgroup reaper needs), each result handed to `done` as it comes.
std::vector<CaseResult> run_reapers(const Scenario& scenario,
                                    const std::vector<std::string>& reapers,
                                    const ExpectationBook& book, const CaseOptions& options,
                                    const std::function<void(const CaseResult&)>& done) {
  MatrixPlan plan;
  plan.scenarios = {scenario};
  plan.reapers = reapers;
  plan.expectations = book;
  plan.options = options;
  RunResult run;
  run_matrix(plan, run, [&](const CaseResult& c, int, int) { done(c); });
  return run.cases;
}

// `reproduce [--dir DIR] [--ready-...] -- CMD...`: the command under each reaper.
int reproduce_command_of_yours(const GlobalArgs& global, const ReproduceArgs& args) {
  if (args.no_sandbox || args.keep) {
    throw UsageError(
        "--no-sandbox and --keep are for a scenario: a command of yours runs only "
        "in the sandbox, where its folder is copy-on-write");
  }
  if (global.command->empty()) {
    throw UsageError(
        "nothing after '--': give the command to run, e.g. reapcheck reproduce "
        "--ready-port 5173 -- npm run dev");
  }
  if (!args.words.empty()) {
    throw UsageError(
        fmt::format("'{}' before '--': a scenario id and a command cannot be given "
                    "together",
                    fmt::join(args.words, " ")));
  }
  std::error_code ec;
  const std::filesystem::path dir =
      std::filesystem::weakly_canonical(args.dir.empty() ? "." : args.dir, ec);
  if (ec || !std::filesystem::exists(dir)) {
    throw UsageError(fmt::format("--dir {}: no such directory", args.dir));
  }
  if (!std::filesystem::is_directory(dir)) {
    throw UsageError(fmt::format("--dir {}: not a directory", args.dir));
  }
  const Scenario scenario = command_scenario(*global.command, dir, args.ready);
  if (std::string why = unrunnable(*scenario.agent, global.layout); !why.empty()) {
    throw UsageError(why);
  }
  const std::vector<std::string> reapers = select_reapers(args.reapers, false, global.layout);
  CaseOptions options = args.base.options(global);
  args.timing.apply_to(options);
  if (args.ready_timeout_ms > 0) options.ready = std::chrono::milliseconds(args.ready_timeout_ms);
  watch_interrupts();
  // The command as the reports show it: printable, and cut to a line.
  fmt::print(
      "Reproducing `{}` in {} with {} reaper(s), each in a sandbox of its own (pids are "
      "the sandbox's; {} is copy-on-write there)...\n",
      cut(printable(fmt::format("{}", fmt::join(scenario.agent->command, " "))), 200), dir.string(),
      reapers.size(), dir.string());
  const std::vector<CaseResult> results =
      run_reapers(scenario, reapers, {}, options, [](const CaseResult& c) {
        // A pass is one line; what went wrong gets the whole story.
        if (c.verdict == Verdict::pass) {
          fmt::print("\n{}: pass — {}\n", shown_reaper(c.reaper), evidence_summary(c));
        } else {
          fmt::print("{}", reproduce_report(c, nullptr));
        }
        std::fflush(stdout);
      });
  // The built-in scenarios' expectations rank what passed here: the reaper with the fewest
  // declared weaknesses anywhere is the one to copy.
  fmt::print("{}", reproduce_summary(results, most_robust_first(catalogue_entries(global.layout),
                                                                load_inputs(global).expectations)));
  fmt::print("\nEvery sandbox has ended: nothing above is still running, and {} is as it was.\n",
             dir.string());
  const bool all_passed = std::all_of(results.begin(), results.end(), [](const CaseResult& c) {
    return c.verdict == Verdict::pass;
  });
  return all_passed ? kExitOk : kExitDeviation;
}

// Words typed where `--` and a command were meant: what to write instead.
void require_dashes(const ReproduceArgs& args) {
  const bool command_options = !args.dir.empty() || args.ready.any() || args.ready_timeout_ms > 0;
  if (args.words.size() > 1 || (command_options && !args.words.empty())) {
    throw UsageError(fmt::format("a command goes after '--': reapcheck reproduce{} -- {}",
                                 args.dir.empty() ? "" : " --dir " + args.dir,
                                 fmt::join(args.words, " ")));
  }
  if (command_options) {
    throw UsageError(
        "--dir and --ready-* go with a command: reapcheck reproduce --dir DIR -- CMD "
        "[ARGS...]");
  }
}

int reproduce(const GlobalArgs& global, const ReproduceArgs& args) {
  if (global.command) return reproduce_command_of_yours(global, args);
  require_dashes(args);
  const ScenarioSet set = load_inputs(global);
  const std::vector<Scenario> scenarios =
      select_scenarios(set, {args.words.empty() ? "npm-dev-server" : args.words.front()});
  const Scenario& scenario = scenarios.front();
  if (args.reapers.size() > 1 && args.no_sandbox) {
    throw UsageError("--no-sandbox reproduces a scenario with one --reaper");
  }
  const std::vector<std::string> reapers =
      select_reapers(args.reapers.empty() ? std::vector<std::string>{"pgroup"} : args.reapers,
                     false, global.layout);
  const std::string& reaper = reapers.front();
  if (auto missing = missing_interpreters(scenarios, global.layout); !missing.empty()) {
    throw UsageError(missing);
  }
  if (!args.no_sandbox) require_usable_host();
  CaseOptions options = args.base.options(global);
  args.timing.apply_to(options);
  const ScenarioNotes notes =
      notes_for({scenario}, set.expectations, global.layout).at(scenario.id);
  if (reapers.size() > 1) {
    watch_interrupts();
    fmt::print("Reproducing {} with {} reapers, each in a sandbox of its own...\n", scenario.id,
               reapers.size());
    const std::vector<CaseResult> results =
        run_reapers(scenario, reapers, set.expectations, options, [&](const CaseResult& c) {
          fmt::print("{}", reproduce_report(c, &notes));
          std::fflush(stdout);
        });
    fmt::print("{}", reproduce_summary(results, most_robust_first(catalogue_entries(global.layout),
                                                                  set.expectations)));
    return std::all_of(results.begin(), results.end(),
                       [](const CaseResult& c) { return c.as_expected(); })
               ? kExitOk
               : kExitDeviation;
  }
  if (args.keep && !args.no_sandbox) {
    throw UsageError("--keep needs --no-sandbox: a sandbox's processes end with it");
  }
  if (args.no_sandbox) {
    if (auto refusal = host_run_refusal(scenario, reaper); !refusal.empty()) {
      throw UsageError("--no-sandbox: " + refusal);
    }
    announce_host_run(scenario, reaper, args);
    options.on_host =
        HostRun{args.keep, args.keep ? kept_scratch(global.layout) : std::filesystem::path()};
  }
  watch_interrupts();
  fmt::print("Reproducing {} with {} ({})...\n", scenario.id, reaper,
             args.no_sandbox ? "on this machine" : "in a sandbox; pids are the sandbox's");
  const CaseResult c =
      options.on_host
          ? run_case(make_job(scenario, reaper, set.expectations, false), options)
          : run_reapers(scenario, {reaper}, set.expectations, options, [](const CaseResult&) {
            }).front();
  print_outcome(c, notes, args,
                options.on_host ? options.on_host->scratch : std::filesystem::path());
  return c.as_expected() ? kExitOk : kExitDeviation;
}

}  // namespace

Command reproduce_command(CLI::App& app, const GlobalArgs& global) {
  auto args = std::make_shared<ReproduceArgs>();
  auto* cmd = app.add_subcommand(
      "reproduce",
      "Reproduce a leak by hand and show what leaked and which ports still answer: one "
      "scenario (default: the npm dev-server leak), or your own command after '--', run in "
      "your folder under each reaper");
  cmd->footer(
      "Examples:\n"
      "  reapcheck reproduce npm-dev-server --reaper pgroup\n"
      "  reapcheck reproduce --dir ~/my-app --ready-port 5173 -- npm run dev\n"
      "  reapcheck reproduce --reaper pgroup --reaper cgroup --ready-log 'listening' -- "
      "python3 server.py");
  cmd->add_option("scenario", args->words, "Scenario id (default: npm-dev-server)")
      ->type_name("SCENARIO");
  cmd->add_option("--reaper", args->reapers,
                  "Reaper id, repeatable (default: pgroup for a scenario, every built-in for a "
                  "command)")
      ->type_name("ID");
  cmd->add_option("--dir", args->dir,
                  "With -- CMD: the folder the command runs in (default: the current one); it "
                  "sees it copy-on-write, and it is never written")
      ->type_name("DIR");
  auto* port = cmd->add_option("--ready-port", args->ready.port,
                               "With -- CMD: ready once something listens on this TCP port")
                   ->type_name("N")
                   ->check(CLI::Range(1, 65535));
  auto* log = cmd->add_option("--ready-log", args->ready.log,
                              "With -- CMD: ready once a line of its output matches this regex")
                  ->type_name("REGEX")
                  ->check([](const std::string& p) { return ready_log_error(p); });
  auto* after = cmd->add_option("--ready-after", args->ready.after_ms,
                                "With -- CMD: ready this long after it started")
                    ->type_name("MS")
                    ->check(CLI::Range(1, 3600000));
  port->excludes(log)->excludes(after);
  log->excludes(after);
  cmd->add_option("--ready-timeout", args->ready_timeout_ms,
                  "With -- CMD: how long it may take to be ready (default 10000; then, and in "
                  "every case, once it has gone 500 ms without a fork or exec)")
      ->type_name("MS")
      ->check(CLI::Range(1, 3600000));
  cmd->add_flag("--no-sandbox", args->no_sandbox,
                "Run on this machine as a user would see it (built-in reapers and presets "
                "only; says what it will do first)");
  cmd->add_flag("--keep", args->keep,
                "With --no-sandbox: leave the survivors running, and keep the worktree they run "
                "in");
  add_timing_options(cmd, args->timing);
  add_keep_trace_option(cmd, args->base);
  return {cmd, [args, &global] { return reproduce(global, *args); }};
}

}  // namespace reapcheck
