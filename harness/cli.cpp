#include "cli.h"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "bench_command.h"
#include "fixture.h"
#include "interrupt.h"
#include "matrix.h"
#include "paths.h"
#include "reaper_catalog.h"
#include "reports/file_output.h"
#include "reports/html_report.h"
#include "reports/json_report.h"
#include "reports/junit_report.h"
#include "reports/process_forest.h"
#include "reports/text_matrix.h"
#include "summary.h"

namespace reapcheck {
namespace {

// A configuration error: reported on one line, exit status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

std::vector<Scenario> select_scenarios(const std::filesystem::path& dir,
                                       const std::vector<std::string>& wanted) {
  std::vector<Scenario> all = load_scenarios(dir);
  if (all.empty()) throw UsageError(dir.string() + ": no scenario files (*.toml)");
  if (wanted.empty()) return all;
  std::vector<Scenario> out;
  for (const auto& id : wanted) {
    auto it = std::find_if(all.begin(), all.end(), [&](const Scenario& s) { return s.id == id; });
    if (it == all.end()) {
      std::vector<std::string> ids;
      ids.reserve(all.size());
      for (const auto& s : all) ids.push_back(s.id);
      throw UsageError(
          fmt::format("unknown scenario '{}' (scenarios in {}: {})", id, dir.string(), join(ids)));
    }
    out.push_back(*it);
  }
  return out;
}

// "@FILE" names a reaper written in FILE: ids such as exec:CMD may hold characters that a
// build system or a shell would mangle on the way to the command line.
std::string reaper_id_from(const std::string& arg) {
  if (arg.empty() || arg[0] != '@') return arg;
  std::ifstream in(arg.substr(1));
  if (!in) throw UsageError(fmt::format("cannot read the reaper id from '{}'", arg.substr(1)));
  std::string id;
  std::getline(in, id);
  return id;
}

std::vector<std::string> select_reapers(const std::vector<std::string>& wanted, bool presets) {
  std::vector<std::string> out;
  out.reserve(wanted.size());
  for (const auto& w : wanted) out.push_back(reaper_id_from(w));
  if (out.empty()) out = builtin_reaper_ids();
  if (presets) {
    for (const auto& id : preset_reaper_ids()) out.push_back(id);
  }
  for (const auto& id : out) {
    if (!resolve_reaper(id)) {
      throw UsageError(fmt::format("unknown reaper '{}' (valid: {})", id, valid_reaper_ids()));
    }
  }
  return out;
}

nlohmann::json list_json(const std::vector<Scenario>& scenarios) {
  nlohmann::json j;
  j["reapers"] = nlohmann::json::array();
  for (const auto& r : reaper_catalog()) {
    if (!r.preset) j["reapers"].push_back({{"id", r.id}, {"technique", r.technique}});
  }
  j["presets"] = nlohmann::json::array();
  for (const auto& r : reaper_catalog()) {
    if (r.preset) {
      j["presets"].push_back({{"id", r.id}, {"technique", r.technique}, {"needs", r.needs}});
    }
  }
  j["scenarios"] = nlohmann::json::array();
  for (const auto& s : scenarios) {
    nlohmann::json known = nlohmann::json::object();
    for (const auto& [reaper, e] : s.known) {
      known[reaper] = {{"verdict", to_string(e.verdict)}, {"reason", e.reason}};
    }
    nlohmann::json skip = nlohmann::json::object();
    for (const auto& [reaper, reason] : s.skip) skip[reaper] = reason;
    j["scenarios"].push_back({{"id", s.id},
                              {"description", s.description},
                              {"tags", s.tags},
                              {"file", s.file.string()},
                              {"members", s.member_count()},
                              {"known", known},
                              {"skip", skip}});
  }
  return j;
}

void print_list(const std::vector<Scenario>& scenarios) {
  fmt::print("Reapers (built in):\n");
  for (const auto& r : reaper_catalog()) {
    if (!r.preset) fmt::print("  {:<12} {}\n", r.id, r.technique);
  }
  fmt::print("\nPresets (--presets, or --reaper ID):\n");
  for (const auto& r : reaper_catalog()) {
    if (r.preset) fmt::print("  {:<12} {}\n", r.id, r.technique);
  }
  fmt::print(
      "\nAny other reaper: --reaper 'exec:CMD' (run at kill time with {{pid}} {{pgid}} {{sid}} "
      "{{worktree}} {{grace_s}})\n                  --reaper 'supervise:CMD' (the agent runs "
      "as CMD AGENT...)\n");
  fmt::print("\nScenarios:\n");
  for (const auto& s : scenarios) {
    fmt::print("  {:<16} {} [{}]\n", s.id, s.description, join(s.tags));
    for (const auto& [reaper, e] : s.known) {
      fmt::print("  {:<16}   known: {} → {}: {}\n", "", reaper, to_string(e.verdict), e.reason);
    }
  }
}

bool use_colour() {
  const char* no_color = std::getenv("NO_COLOR");
  return ::isatty(STDOUT_FILENO) != 0 && (no_color == nullptr || *no_color == '\0');
}

// One case per core: a case spends most of its time waiting on processes, but a wide tree or
// a fork storm keeps a core busy, and the race scenarios need theirs to stay deterministic.
int default_jobs() {
  const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

struct RunArgs {
  std::vector<std::string> scenarios;
  std::vector<std::string> reapers;
  std::string json_file;
  std::string junit_file;
  std::string out_dir;
  int grace_ms = 300;
  int settle_ms = 1000;
  int repeat = 1;
  int jobs = default_jobs();
  int skip_exit_code = 0;
  bool quiet = false;
  bool presets = false;
  bool expect_pass = false;
};

void write_reports(const RunResult& run, const RunArgs& args) {
  if (!args.json_file.empty()) write_json_report(run, args.json_file);
  if (!args.junit_file.empty()) write_junit_report(run, args.junit_file);
  if (!args.out_dir.empty()) {
    const std::filesystem::path dir(args.out_dir);
    write_json_report(run, dir / "results.json");
    write_junit_report(run, dir / "junit.xml");
    write_text_file(dir / "matrix.txt", text_matrix(run, false) + text_deviations(run));
    write_html_report(run, dir / "matrix.html");
  }
}

int do_run(const std::filesystem::path& scenario_dir, const RunArgs& args) {
  MatrixPlan plan;
  plan.scenarios = select_scenarios(scenario_dir, args.scenarios);
  plan.reapers = select_reapers(args.reapers, args.presets);
  if (auto missing = missing_interpreters(plan.scenarios); !missing.empty()) {
    throw UsageError(missing);
  }
  plan.repeat = args.repeat;
  plan.jobs = args.jobs;
  plan.options.grace = std::chrono::milliseconds(args.grace_ms);
  plan.options.settle = std::chrono::milliseconds(args.settle_ms);
  plan.options.expect_pass = args.expect_pass;

  watch_interrupts();
  RunResult run;
  // On a terminal one status line is rewritten in place (done, current, elapsed, time left);
  // otherwise each finished case is a plain line, for logs.
  const bool live = ::isatty(STDERR_FILENO) != 0;
  const auto started = std::chrono::steady_clock::now();
  auto progress = [&](const CaseResult& c, int done, int total) {
    if (args.quiet) return;
    const std::string mark = c.as_expected() ? "ok" : "UNEXPECTED";
    const std::string line =
        fmt::format("[{}/{}] {} × {}{}: {} ({})", done, total, c.scenario, c.reaper,
                    args.repeat > 1 ? fmt::format(" #{}", c.run) : "", to_string(c.verdict), mark);
    if (!live) {
      fmt::print(stderr, "{} {:.0f} ms\n", line, c.case_ms);
      return;
    }
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const double left = elapsed / done * (total - done);
    if (!c.as_expected()) fmt::print(stderr, "\r\x1b[K{}\n", line);  // surprises stay on screen
    fmt::print(stderr, "\r\x1b[K[{}/{}] {:.0f}s elapsed, ~{:.0f}s left — last: {} × {}: {}", done,
               total, elapsed, left, c.scenario, c.reaper, to_string(c.verdict));
    if (done == total) fmt::print(stderr, "\r\x1b[K");
  };
  try {
    run_matrix(plan, run, progress);
  } catch (const Interrupted& e) {
    fmt::print(stderr,
               "reapcheck: {}; the cases in progress were ended, nothing they started is "
               "left running; writing the {} finished cases\n",
               e.what(), run.cases.size());
    write_reports(run, args);
    return kExitInterrupted;
  }

  fmt::print("{}", text_matrix(run, use_colour()));
  fmt::print("{}", text_deviations(run));
  write_reports(run, args);
  const Summary summary = summarise(run);
  if (!summary.ok()) return kExitDeviation;
  if (args.skip_exit_code != 0 && summary.skipped() == static_cast<int>(summary.cells.size())) {
    return args.skip_exit_code;
  }
  return kExitOk;
}

struct ReproduceArgs {
  std::string scenario = "npm-dev-server";
  std::string reaper = "pgroup";
  bool no_sandbox = false;
  bool keep = false;
  int grace_ms = 300;
  int settle_ms = 1000;
};

// The manual reproduction: one case, its leak shown the way a person reads it.
int do_reproduce(const std::filesystem::path& scenario_dir, const ReproduceArgs& args) {
  std::vector<Scenario> scenarios = select_scenarios(scenario_dir, {args.scenario});
  const Scenario& scenario = scenarios.front();
  const std::string reaper = select_reapers({args.reaper}, false).front();
  if (auto missing = missing_interpreters(scenarios); !missing.empty()) throw UsageError(missing);
  CaseOptions options;
  options.grace = std::chrono::milliseconds(args.grace_ms);
  options.settle = std::chrono::milliseconds(args.settle_ms);
  options.on_host = args.no_sandbox;
  options.keep = args.keep;
  if (args.no_sandbox) {
    if (auto refusal = host_run_refusal(scenario, reaper); !refusal.empty()) {
      throw UsageError("--no-sandbox: " + refusal);
    }
    fmt::print(stderr,
               "reapcheck: --no-sandbox: scenario '{}' runs on THIS machine, not in a sandbox.\n"
               "  It starts the agent ({}) in a temporary worktree, lets reaper '{}' kill it,\n"
               "  and signals nothing but the processes it started, through pidfds.\n"
               "  {}\n",
               scenario.id, scenario.agent ? join(scenario.agent->command) : "the fixture tree",
               reaper,
               args.keep ? "--keep: whatever survives is left running for you to inspect."
                         : "Whatever survives is killed afterwards (--keep leaves it running).");
  }
  watch_interrupts();
  fmt::print("Reproducing {} with {} ({})...\n", scenario.id, reaper,
             args.no_sandbox ? "on this machine" : "in a sandbox; pids are the sandbox's");
  CaseResult c = run_case(scenario, reaper, options);
  fmt::print("\n{}: {} — {}\n", c.scenario, to_string(c.verdict), c.reason);
  if (!c.survivors.empty()) fmt::print("\nLeaked processes:\n{}", process_forest(c.survivors));
  if (!c.open_ports.empty()) {
    fmt::print("\nPorts still answering:\n");
    for (const auto& p : c.open_ports) {
      fmt::print("  127.0.0.1:{} ({}) held by pid {}\n", p.port, p.role, p.pid);
    }
  }
  if (c.survivors.empty() && c.open_ports.empty()) fmt::print("\nNothing leaked.\n");
  if (!args.no_sandbox) {
    fmt::print("\nThe sandbox has ended: nothing above is still running.\n");
  } else if (args.keep && !c.survivors.empty()) {
    fmt::print("\nLeft running (--keep); end them with: kill -9");
    for (const auto& s : c.survivors) fmt::print(" {}", s.pid);
    fmt::print("\n");
  } else {
    fmt::print("\nCleaned up: every process the reproduction started has been killed.\n");
  }
  return c.as_expected() ? kExitOk : kExitDeviation;
}

}  // namespace

int run_cli(int argc, char** argv) {
  CLI::App app{
      "reapcheck: reproduces the ways a process tree escapes its reaper, runs reapers "
      "against them in sandboxes, and reports what survived and who was wrongly "
      "signalled.\n\nExit status: 0 every verdict equals its expectation; 1 a verdict "
      "differs or repeats disagree; 2 usage or configuration error; 130 interrupted."};
  app.require_subcommand(1);
  app.fallthrough();
  std::string scenario_dir = default_scenarios_dir().string();
  app.add_option("--scenarios", scenario_dir, "Directory of scenario files")->capture_default_str();

  auto* list = app.add_subcommand("list", "List the scenarios and the built-in reapers");
  bool list_as_json = false;
  list->add_flag("--json", list_as_json, "Print as JSON (the source of generated docs and tests)");

  RunArgs args;
  auto* run = app.add_subcommand(
      "run", "Run scenarios × reapers, each case in its own sandbox, and print the matrix");
  run->add_option("--scenario", args.scenarios, "Scenario id (repeatable; default: all)");
  run->add_option("--reaper", args.reapers,
                  "Reaper: a built-in or preset id, 'exec:CMD', 'supervise:CMD', or @FILE holding "
                  "one of those (repeatable; default: every built-in)");
  run->add_flag("--presets", args.presets, "Also run every preset (tini, dumb-init, ...)");
  run->add_flag("--expect-pass", args.expect_pass,
                "Expect pass in every case, ignoring declared weaknesses (for a CI gate)");
  run->add_option("--json", args.json_file, "Write the results as JSON to FILE");
  run->add_option("--junit", args.junit_file, "Write JUnit XML to FILE");
  run->add_option("--out", args.out_dir, "Write results.json, junit.xml and matrix.txt into DIR");
  run->add_option("--grace", args.grace_ms, "Grace period the reapers give after SIGTERM, in ms")
      ->capture_default_str()
      ->check(CLI::Range(0, 600000));
  run->add_option("--settle", args.settle_ms,
                  "How long members may take to die after the reaper returns, in ms")
      ->capture_default_str()
      ->check(CLI::Range(1, 600000));
  run->add_option("--repeat", args.repeat,
                  "Run each case N times and flag any whose verdicts differ")
      ->capture_default_str()
      ->check(CLI::Range(1, 10000));
  run->add_option("-j,--jobs", args.jobs,
                  "Cases run at once, each in a worker process (default: one per CPU)")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  run->add_option("--skip-exit-code", args.skip_exit_code,
                  "Exit with N when every case was skipped (CTest's SKIP_RETURN_CODE)");
  run->add_flag("-q,--quiet", args.quiet, "No progress lines");

  ReproduceArgs repro;
  auto* reproduce = app.add_subcommand(
      "reproduce",
      "Reproduce one scenario by hand (default: the npm dev-server leak) and show what "
      "leaked and which ports still answer");
  reproduce->add_option("scenario", repro.scenario, "Scenario id")->capture_default_str();
  reproduce->add_option("--reaper", repro.reaper, "Reaper id")->capture_default_str();
  reproduce->add_flag("--no-sandbox", repro.no_sandbox,
                      "Run on this machine as a user would see it (built-in reapers and presets "
                      "only; says what it will do first)");
  reproduce->add_flag("--keep", repro.keep, "With --no-sandbox: leave the survivors running");
  reproduce->add_option("--grace", repro.grace_ms, "Grace period in ms")->capture_default_str();
  reproduce->add_option("--settle", repro.settle_ms, "Settle deadline in ms")
      ->capture_default_str();

  auto* report = app.add_subcommand(
      "report", "Write reports again from a results.json (HTML matrix, JUnit, terminal matrix)");
  std::string report_input, report_html, report_junit;
  report->add_option("results", report_input, "A results.json written by `reapcheck run`")
      ->required()
      ->check(CLI::ExistingFile);
  report->add_option("--html", report_html, "Write the HTML matrix to FILE");
  report->add_option("--junit", report_junit, "Write JUnit XML to FILE");

  BenchArgs bench_args;
  bench_args.jobs = default_jobs();
  auto* bench = app.add_subcommand(
      "bench",
      "Measure snapshot cost, each built-in reaper's kill-to-all-dead time on wide trees and a "
      "deep chain, the harness's overhead per case and the matrix's wall time, against the "
      "targets; writes bench.json, bench.md (the table) and bench.svg (the plot)");
  bench->add_flag("--quick", bench_args.quick,
                  "Trees up to 1,000 members, one run each, no matrix: under a minute");
  bench->add_option("--json", bench_args.json_file,
                    "Write the JSON here instead of DIR/bench.json");
  bench->add_option("--out", bench_args.out_dir, "Directory for bench.json, bench.md, bench.svg")
      ->capture_default_str();
  bench->add_option("-j,--jobs", bench_args.jobs, "Workers for the matrix run")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }

  try {
    if (*list) {
      auto scenarios = load_scenarios(scenario_dir);
      if (list_as_json) {
        fmt::print("{}\n", list_json(scenarios).dump(2));
      } else {
        print_list(scenarios);
      }
      return kExitOk;
    }
    if (*reproduce) return do_reproduce(scenario_dir, repro);
    if (*bench) return run_bench(scenario_dir, bench_args);
    if (*report) {
      RunResult results;
      try {
        results = read_json_report(report_input);
      } catch (const std::exception& e) {
        throw UsageError(e.what());
      }
      if (!report_html.empty()) write_html_report(results, report_html);
      if (!report_junit.empty()) write_junit_report(results, report_junit);
      fmt::print("{}{}", text_matrix(results, use_colour()), text_deviations(results));
      return kExitOk;
    }
    return do_run(scenario_dir, args);
  } catch (const ScenarioError& e) {
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
