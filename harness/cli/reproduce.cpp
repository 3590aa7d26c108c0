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
#include "harness/cli/progress.h"
#include "harness/cli/recorded_run.h"
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
  int jobs = default_jobs();
  OutputFiles outputs;  // --out DIR
  Timing timing;        // --grace, --settle
  CaseBase base;        // --keep-trace

  // Where a report's list cut for the screen is whole: DIR/results.json under --out, else none.
  std::string listed_in() const {
    return outputs.out_dir.empty()
               ? std::string()
               : (std::filesystem::path(outputs.out_dir) / "results.json").string();
  }
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
  fmt::print("{}", reproduce_report(c, &notes, args.listed_in()));
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

// What the reports say of this reproduction: where and how, and what it set out to run.
RunInfo info_of(const Scenario& scenario, const std::vector<std::string>& reapers,
                const ReproduceArgs& args) {
  RunInfo info = run_info({{"grace", fmt::format("{} ms", args.timing.grace_ms)},
                           {"settle", fmt::format("{} ms", args.timing.settle_ms)}});
  info.plan_scenarios = {scenario.id};
  info.plan_reapers = printable(reapers);  // as the cases name them (CaseResult::reaper)
  return info;
}

// `scenario` under each of `reapers`, args.jobs at a time (in the run's own cgroup area, which
// the cgroup reaper needs), each case journalled under --out DIR and then handed to `shown` as it
// finishes, with run's progress lines when there are several. Nothing when interrupted (the
// finished cases are written then).
std::optional<RunResult> run_reapers(RecordedRun& recorded, const Scenario& scenario,
                                     const std::vector<std::string>& reapers,
                                     const ExpectationBook& book, const CaseOptions& options,
                                     const ReproduceArgs& args, const ScenarioNotes& notes,
                                     const std::function<void(const CaseResult&)>& shown) {
  MatrixPlan plan;
  plan.scenarios = {scenario};
  plan.reapers = reapers;
  plan.expectations = book;
  plan.options = options;
  plan.jobs = args.jobs;
  RunResult run;
  run.info = info_of(scenario, reapers, args);
  run.scenarios = {{scenario.id, notes}};
  const ProgressLines progress(reapers.size() < 2, false, plan);
  const bool finished = recorded.run(plan, run, [&](const CaseResult& c, int done, int total) {
    progress.make_room();
    shown(c);
    std::fflush(stdout);
    progress(c, done, total);
  });
  if (!finished) return std::nullopt;
  return run;
}

// "2 at a time, " when more than one case runs at once.
std::string at_a_time(const ReproduceArgs& args, size_t reapers) {
  const size_t at_once = std::min<size_t>(static_cast<size_t>(args.jobs), reapers);
  return at_once > 1 ? fmt::format("{} at a time, ", at_once) : std::string();
}

// What a reproduction ends with: its reports (under --out), and its exit status.
int finish(RecordedRun& recorded, const RunResult& run, bool ok) {
  if (!recorded.write(run)) return kExitUsage;
  return ok ? kExitOk : kExitDeviation;
}

// A command of the user's, as given: refused before anything runs when it is no command, or
// comes with options that are a scenario's.
void check_command(const GlobalArgs& global, const ReproduceArgs& args) {
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
}

// `reproduce [--dir DIR] [--ready-...] -- CMD...`: the command under each reaper.
int reproduce_command_of_yours(const GlobalArgs& global, const ReproduceArgs& args) {
  check_command(global, args);
  const std::filesystem::path dir = project_dir(args.dir);
  const Scenario scenario = command_scenario(*global.command, dir, args.ready);
  if (std::string why = unrunnable(*scenario.agent, global.layout); !why.empty()) {
    throw UsageError(why);
  }
  const std::vector<std::string> reapers = select_reapers(args.reapers, false, global.layout);
  CaseOptions options = args.base.options(global);
  args.timing.apply_to(options);
  if (args.ready_timeout_ms > 0) options.ready = std::chrono::milliseconds(args.ready_timeout_ms);
  RecordedRun recorded(args.outputs);  // one run at a time on --out DIR
  watch_interrupts();
  // The command as the reports show it: printable, and cut to a line.
  fmt::print(
      "Reproducing `{}` in {} with {} reaper(s), {}each in a sandbox of its own (pids are "
      "the sandbox's; {} is copy-on-write there)...\n",
      cut(printable(fmt::format("{}", fmt::join(scenario.agent->command, " "))), 200), dir.string(),
      reapers.size(), at_a_time(args, reapers.size()), dir.string());
  const ExpectationBook book = load_inputs(global).expectations;
  const auto run = run_reapers(
      recorded, scenario, reapers, {}, options, args,
      notes_for({scenario}, {}, global.layout).at(scenario.id), [&](const CaseResult& c) {
        // A pass is one line; what went wrong gets the whole story.
        if (c.verdict == Verdict::pass) {
          fmt::print("\n{}: pass — {}\n", shown_reaper(c.reaper), evidence_summary(c));
        } else {
          fmt::print("{}", reproduce_report(c, nullptr, args.listed_in()));
        }
      });
  if (!run) return kExitInterrupted;
  // The built-in scenarios' expectations rank what passed here: the reaper with the fewest
  // declared weaknesses anywhere is the one to copy.
  fmt::print("{}", reproduce_summary(run->cases,
                                     most_robust_first(catalogue_entries(global.layout), book)));
  fmt::print("\nEvery sandbox has ended: nothing above is still running, and {} is as it was.\n",
             dir.string());
  return finish(recorded, *run,
                std::all_of(run->cases.begin(), run->cases.end(),
                            [](const CaseResult& c) { return c.verdict == Verdict::pass; }));
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

// A scenario and what it runs under, checked: nothing has run yet.
struct ScenarioRun {
  ScenarioSet set;
  Scenario scenario;
  std::vector<std::string> reapers;
  ScenarioNotes notes;
};

ScenarioRun scenario_run(const GlobalArgs& global, const ReproduceArgs& args) {
  require_dashes(args);
  ScenarioSet set = load_inputs(global);
  const std::vector<Scenario> scenarios =
      select_scenarios(set, {args.words.empty() ? "npm-dev-server" : args.words.front()});
  if (args.reapers.size() > 1 && args.no_sandbox) {
    throw UsageError("--no-sandbox reproduces a scenario with one --reaper");
  }
  std::vector<std::string> reapers =
      select_reapers(args.reapers.empty() ? std::vector<std::string>{"pgroup"} : args.reapers,
                     false, global.layout);
  if (auto missing = missing_interpreters(scenarios, global.layout); !missing.empty()) {
    throw UsageError(missing);
  }
  if (args.keep && !args.no_sandbox) {
    throw UsageError("--keep needs --no-sandbox: a sandbox's processes end with it");
  }
  if (args.no_sandbox && args.base.memory_max != 0) {
    throw UsageError("--memory-max bounds a case's sandbox: --no-sandbox runs none");
  }
  if (args.no_sandbox && global.layout.temp.native().find(':') != std::string::npos) {
    throw UsageError("--no-sandbox: TMPDIR " + global.layout.temp.string() +
                     " holds a ':', which a PATH entry cannot, and the worktree made there goes "
                     "in PATH (npm adds its node_modules/.bin): give a TMPDIR without one");
  }
  if (args.no_sandbox) {
    if (auto refusal = host_run_refusal(scenarios.front(), reapers.front()); !refusal.empty()) {
      throw UsageError("--no-sandbox: " + refusal);
    }
  } else {
    require_usable_host();
  }
  ScenarioNotes notes =
      notes_for(scenarios, set.expectations, global.layout).at(scenarios.front().id);
  return {std::move(set), scenarios.front(), std::move(reapers), std::move(notes)};
}

// `reproduce SCENARIO --reaper A --reaper B...`: each reaper's story, then what passed.
int reproduce_with_reapers(const GlobalArgs& global, const ReproduceArgs& args,
                           const ScenarioRun& s, const CaseOptions& options) {
  RecordedRun recorded(args.outputs);  // one run at a time on --out DIR
  watch_interrupts();
  fmt::print("Reproducing {} with {} reapers, {}each in a sandbox of its own...\n", s.scenario.id,
             s.reapers.size(), at_a_time(args, s.reapers.size()));
  const auto run = run_reapers(recorded, s.scenario, s.reapers, s.set.expectations, options, args,
                               s.notes, [&](const CaseResult& c) {
                                 fmt::print("{}", reproduce_report(c, &s.notes, args.listed_in()));
                               });
  if (!run) return kExitInterrupted;
  fmt::print("{}", reproduce_summary(run->cases, most_robust_first(catalogue_entries(global.layout),
                                                                   s.set.expectations)));
  return finish(recorded, *run,
                std::all_of(run->cases.begin(), run->cases.end(),
                            [](const CaseResult& c) { return c.as_expected(); }));
}

// `reproduce [SCENARIO] [--reaper ID] [--no-sandbox [--keep]]`: one case, told in full.
int reproduce_one(const GlobalArgs& global, const ReproduceArgs& args, const ScenarioRun& s,
                  CaseOptions options) {
  const std::string& reaper = s.reapers.front();
  RecordedRun recorded(args.outputs);  // one run at a time on --out DIR
  if (args.no_sandbox) {
    announce_host_run(s.scenario, reaper, args);
    options.on_host =
        HostRun{args.keep, args.keep ? kept_scratch(global.layout) : std::filesystem::path()};
  }
  watch_interrupts();
  fmt::print("Reproducing {} with {} ({})...\n", s.scenario.id, reaper,
             args.no_sandbox ? "on this machine" : "in a sandbox; pids are the sandbox's");
  std::optional<RunResult> run;
  if (options.on_host) {
    // On this machine the case runs here, not in the matrix's pool: its result is the run.
    const auto start = std::chrono::steady_clock::now();
    run.emplace();
    run->info = info_of(s.scenario, s.reapers, args);
    run->scenarios = {{s.scenario.id, s.notes}};
    run->grace_ms = static_cast<int>(options.grace.count());
    run->cases = {run_case(make_job(s.scenario, reaper, s.set.expectations, false), options)};
    run->wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  } else {
    run = run_reapers(recorded, s.scenario, s.reapers, s.set.expectations, options, args, s.notes,
                      [](const CaseResult&) {});
  }
  if (!run) return kExitInterrupted;
  const CaseResult& c = run->cases.front();
  print_outcome(c, s.notes, args,
                options.on_host ? options.on_host->scratch : std::filesystem::path());
  return finish(recorded, *run, c.as_expected());
}

int reproduce(const GlobalArgs& global, const ReproduceArgs& args) {
  if (global.command) return reproduce_command_of_yours(global, args);
  const ScenarioRun s = scenario_run(global, args);
  CaseOptions options = args.base.options(global);
  args.timing.apply_to(options);
  if (s.reapers.size() > 1) return reproduce_with_reapers(global, args, s, options);
  return reproduce_one(global, args, s, options);
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
      "  reapcheck reproduce -j 2 --out reports/dev --ready-port 5173 -- npm run dev\n"
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
  cmd->add_option("-j,--jobs", args->jobs,
                  "Reapers run at once, each case in a worker process and a sandbox of its own "
                  "(default: one per CPU)")
      ->type_name("N")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  cmd->add_option("--out", args->outputs.out_dir,
                  "Write results.json, junit.xml, matrix.txt and matrix.html into DIR (created "
                  "if missing), as run --out does")
      ->type_name("DIR");
  add_timing_options(cmd, args->timing);
  add_keep_trace_option(cmd, args->base);
  add_memory_max_option(cmd, args->base);
  return {cmd, [args, &global] { return reproduce(global, *args); }};
}

}  // namespace reapcheck
