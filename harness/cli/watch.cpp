// `reapcheck watch -- CMD`: a project's own command — its test suite, an orchestrator's script —
// run to its end in the sandbox over a copy-on-write view of its folder, its output passed
// through; then what it left running and whom it signalled outside its own tests, each put to
// the test that started it. Its exit status is the command's unless something was found.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <set>

#include "harness/cli/commands.h"
#include "harness/cli/environment.h"
#include "harness/cli/recorded_run.h"
#include "harness/engine/tree/fixture.h"
#include "harness/engine/watch/watched_command.h"
#include "harness/model/cut.h"
#include "harness/model/expectations.h"
#include "harness/model/text.h"
#include "harness/model/toml_reader.h"
#include "harness/support/exit_status.h"
#include "harness/support/interrupt.h"
#include "reaper/reaper.h"
#include "reports/watch_report.h"

namespace reapcheck {
namespace {

// The reaper every part is judged as: the suite's own kill paths. Expectations files name it.
constexpr std::string_view kSuite = "suite";
// The part outside any test.
constexpr std::string_view kCommandPart = "command";

struct WatchArgs {
  std::string dir;
  int timeout_s = 3600;
  int settle_ms = 1000;
  OutputFiles outputs;
  std::vector<std::string> expectations;
  CaseBase base;  // --memory-max
};

// The ids an expectations file declares, so that it is read (and refused, naming its line)
// before anything runs; whether each test ran is known only afterwards.
std::vector<std::string> declared_ids(const std::string& text, const std::string& file) {
  std::vector<std::string> ids;
  const toml::table t = parse_toml(text, file);
  for (const char* key : {"known", "skip"}) {
    const toml::array* entries = t[key].as_array();
    if (entries == nullptr) continue;
    for (const auto& e : *entries) {
      const toml::array* scenarios =
          e.as_table() ? (*e.as_table())["scenarios"].as_array() : nullptr;
      if (scenarios == nullptr) continue;
      for (const auto& id : *scenarios) {
        if (const auto s = id.value<std::string>()) ids.push_back(*s);
      }
    }
  }
  return ids;
}

ExpectationBook read_expectations(const std::vector<std::string>& files) {
  ExpectationBook book;
  for (const auto& file : files) {
    const std::string text = read_input(file);
    book.add(parse_expectations(text, file, declared_ids(text, file), {std::string(kSuite)},
                                "watch's reaper, suite"));
  }
  return book;
}

std::string status_of(const WatchObservation& seen) {
  if (seen.exit_code >= 0) {
    return fmt::format("exited with status {} after {:.1f} s", seen.exit_code,
                       seen.command_ms / 1000);
  }
  if (seen.exit_signal > 0) {
    return fmt::format("was killed by {} after {:.1f} s", reaper::signal_name(seen.exit_signal),
                       seen.command_ms / 1000);
  }
  return "did not run to its end";
}

// Each part as a case: the test its scenario, the suite its reaper, judged as every case is.
RunResult judged(const WatchObservation& seen, const Scenario& command, const ExpectationBook& book,
                 const WatchArgs& args) {
  RunResult run;
  run.info = run_info({{"settle", fmt::format("{} ms", args.settle_ms)},
                       {"timeout", fmt::format("{} s", args.timeout_s)}});
  run.info.plan_reapers = {std::string(kSuite)};
  for (const WatchPart& part : seen.parts) {
    Scenario s;
    s.id = part.test.empty() ? std::string(kCommandPart) : part.test;
    s.description = part.test.empty()
                        ? fmt::format("{}, outside any test", command.description)
                        : fmt::format("test {} of {}", part.test, command.description);
    s.tags = {"watch"};
    CaseResult c = complete_case(make_job(s, std::string(kSuite), book, false), part.observed);
    if (c.verdict == Verdict::pass) {
      c.reason = "left nothing running, and signalled nothing outside its own processes";
    }
    run.info.plan_scenarios.push_back(s.id);
    run.scenarios[s.id] = ScenarioNotes{s.description, {}, {}, {}};
    run.cases.push_back(std::move(c));
  }
  run.wall_s = seen.command_ms / 1000;
  return run;
}

// A declaration for a test that started no process here: renamed, removed, or fixed so that it
// starts none. Said, and a deviation: the file no longer says what the suite does.
int stale_declarations(const ExpectationBook& book, const RunResult& run) {
  const ReaperExpectations* ours = book.find(kSuite);
  if (ours == nullptr) return 0;
  int stale = 0;
  for (const auto& [declared, expectation] : ours->known) {
    const std::string& test = declared;  // a lambda cannot capture a structured binding (clang)
    if (std::none_of(run.cases.begin(), run.cases.end(),
                     [&](const CaseResult& c) { return c.scenario == test; })) {
      fmt::print(stderr,
                 "reapcheck: stale declaration: {} declares {} for '{}', which started no "
                 "process in this run\n",
                 ours->file.string(), to_string(expectation.verdict), test);
      ++stale;
    }
  }
  return stale;
}

int exit_status(const WatchObservation& seen, const RunResult& run, int stale) {
  const bool as_expected = std::all_of(run.cases.begin(), run.cases.end(),
                                       [](const CaseResult& c) { return c.as_expected(); });
  if (!as_expected || stale > 0) return kExitDeviation;
  if (seen.exit_code >= 0) return seen.exit_code;
  return seen.exit_signal > 0 ? 128 + seen.exit_signal : kExitDeviation;
}

int watch(const GlobalArgs& global, const WatchArgs& args) {
  if (!global.command || global.command->empty()) {
    throw UsageError(
        "nothing to watch: give the command after '--', e.g. reapcheck watch -- cargo test");
  }
  const std::filesystem::path dir = project_dir(args.dir);
  const Scenario scenario = command_scenario(*global.command, dir, AgentReady{});
  if (std::string why = unrunnable(*scenario.agent, global.layout); !why.empty()) {
    throw UsageError(why);
  }
  const ExpectationBook book = read_expectations(args.expectations);
  require_usable_host();
  CaseOptions options = args.base.options(global);
  options.settle = std::chrono::milliseconds(args.settle_ms);
  options.agent_homes = toolchain_homes();
  RecordedRun recorded(args.outputs);  // one run at a time on --out DIR
  watch_interrupts();
  const std::string command = fmt::format("{}", fmt::join(*global.command, " "));
  fmt::print(stderr,
             "reapcheck watch: running `{}` in {}, in a sandbox (pids are the sandbox's; the "
             "folder is copy-on-write there)\n",
             cut(printable(command), 200), dir.string());
  std::fflush(stderr);
  const WatchObservation seen = watch_in_sandbox(
      scenario, options, std::chrono::seconds(args.timeout_s), [](std::string_view out) {
        std::fwrite(out.data(), 1, out.size(), stdout);
        std::fflush(stdout);
      });
  RunResult run = judged(seen, scenario, book, args);
  fmt::print("{}", watch_report(run.cases, command, status_of(seen)));
  std::fflush(stdout);
  const int stale = stale_declarations(book, run);
  if (!recorded.write(run)) return kExitUsage;
  return exit_status(seen, run, stale);
}

}  // namespace

Command watch_command(CLI::App& app, const GlobalArgs& global) {
  auto args = std::make_shared<WatchArgs>();
  auto* cmd = app.add_subcommand(
      "watch",
      "Run your own command (a test suite) to its end in the sandbox, its output passed "
      "through, and report each process it left running and each process outside its tests "
      "it signalled, per test");
  cmd->footer(
      "Exit status: the command's own, unless something was found that no --expectations "
      "file declares (1); 2 for bad input; 130 interrupted.\n"
      "Examples:\n"
      "  reapcheck watch -- cargo test\n"
      "  reapcheck watch --dir build --out reports/watch -- ctest\n"
      "  reapcheck watch --expectations known-leaks.toml -- npm test");
  cmd->add_option("--dir", args->dir,
                  "The folder the command runs in (default: the current one); it sees it "
                  "copy-on-write, and it is never written")
      ->type_name("DIR");
  cmd->add_option("--timeout", args->timeout_s,
                  "How long the command may run before it is ended and the watch is a "
                  "setup-error")
      ->type_name("S")
      ->capture_default_str()
      ->check(CLI::Range(1, 7 * 24 * 3600));
  cmd->add_option("--settle", args->settle_ms,
                  "How long a process may take to end after the command has exited before it "
                  "is a leak")
      ->type_name("MS")
      ->capture_default_str()
      ->check(CLI::Range(0, 600000));
  cmd->add_option("--expectations", args->expectations,
                  "Known leaks and hits, by test, in the expectations format (reaper = "
                  "\"suite\"); repeatable")
      ->type_name("FILE");
  cmd->add_option("--out", args->outputs.out_dir,
                  "Write results.json, junit.xml, matrix.txt and matrix.html into DIR")
      ->type_name("DIR");
  cmd->add_option("--json", args->outputs.json, "Write results.json here")->type_name("FILE");
  cmd->add_option("--junit", args->outputs.junit,
                  "Write a JUnit XML report here (a testcase per test)")
      ->type_name("FILE");
  add_memory_max_option(cmd, args->base);
  return {cmd, [args, &global] { return watch(global, *args); }};
}

}  // namespace reapcheck
