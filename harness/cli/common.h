// What the subcommands share: the inputs they load, how ids on the command line are checked, and
// how output is styled.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/cli/usage_error.h"
#include "harness/model/notes.h"
#include "harness/model/result.h"
#include "harness/model/scenario_set.h"
#include "harness/support/layout.h"

namespace reapcheck {

struct CaseOptions;

// Options every subcommand sees.
struct GlobalArgs {
  Layout layout;               // from the environment (environment.h)
  std::string scenario_dir;    // --scenarios DIR
  std::string color = "auto";  // --color auto|always|never
  // The words after `--` (reproduce -- CMD ARGS...), when `--` was given.
  std::optional<std::vector<std::string>> command;
};

// A subcommand: its CLI11 parser, and what runs once the command line has been parsed.
struct Command {
  CLI::App* parser = nullptr;
  std::function<int()> run;
};

// The scenarios and expectations under --scenarios.
ScenarioSet load_inputs(const GlobalArgs& global);

// One line on stderr per scenario file that did not parse, with its error (file:line:col).
void note_broken(const ScenarioSet& set);

// The scenarios named, by id or glob, and carrying one of `tags` (all when both are empty;
// selection.h's pick_scenarios); UsageError for an unknown id, a glob that matches none or an
// unknown tag, listing the valid ones; InputError, the file's own, when one selected did not
// parse. The files that did not parse and are not selected are noted (note_broken) and left out.
std::vector<Scenario> select_scenarios(const ScenarioSet& set,
                                       const std::vector<std::string>& wanted,
                                       const std::vector<std::string>& tags = {});

// --dir DIR of a command of the user's (default: the current folder), made absolute; UsageError
// when it is no folder.
std::filesystem::path project_dir(const std::string& dir);

// Throws UsageError when no case can run on this host (host_view_refusal()): once, before the
// first case, rather than a setup-error in each.
void require_usable_host();

// The reapers named, checked (all built-ins when `wanted` is empty), then every preset when
// `presets`; each once, in order. A glob (`*`, `?`, `[...]`) stands for the catalogue's ids it
// matches, and is UsageError when it matches none; an exec:/supervise: command is never one.
// "@FILE" names a reaper written in FILE: ids such as exec:CMD may hold characters that a build
// system or a shell would mangle on the way to the command line. An exec:/supervise: command's
// program is looked up in layout.search_path.
std::vector<std::string> select_reapers(const std::vector<std::string>& wanted, bool presets,
                                        const Layout& layout);

// Colour on stdout: --color always or never when given; else (auto) none when NO_COLOR is set
// and not empty, colour when FORCE_COLOR is set and neither empty nor 0, else on a terminal.
bool use_colour(const GlobalArgs& global);

// The reapers of the catalogue (built-ins, then presets), as the reports may suggest them.
std::vector<CatalogueEntry> catalogue_entries(const Layout& layout);

// What the reports teach about each scenario of `scenarios`.
std::map<std::string, ScenarioNotes> notes_for(const std::vector<Scenario>& scenarios,
                                               const ExpectationBook& book, const Layout& layout);

// This machine, this reapcheck and now, for a run's header; `options` as the run was made.
RunInfo run_info(std::vector<std::pair<std::string, std::string>> options);

// The two waits a case is given, in ms: the reapers' grace period after SIGTERM and how long the
// audit watches the tree after the reaper returns. `run` and `reproduce` take them alike.
struct Timing {
  int grace_ms = 300;
  int settle_ms = 1000;

  // Sets `options`' grace and settle to these.
  void apply_to(CaseOptions& options) const;
};

// --grace MS and --settle MS on `cmd`, checked, into `timing`.
void add_timing_options(CLI::App* cmd, Timing& timing);

// The options a command that runs cases starts from: the layout, and the PATH an observed agent
// (a project's own command) runs with, the invoking user's; with --keep-trace (add_keep_trace),
// the tracing instance kept for the next process.
struct CaseBase {
  bool keep_trace = false;       // --keep-trace
  std::uint64_t memory_max = 0;  // --memory-max, in bytes; 0: the default

  CaseOptions options(const GlobalArgs& global) const;
  // The memory bound each case has, in bytes: --memory-max, or the default.
  std::uint64_t memory_bound() const;
};

// --keep-trace on `cmd`, into `base`.
void add_keep_trace_option(CLI::App* cmd, CaseBase& base);

// --memory-max SIZE on `cmd`, into `base`.
void add_memory_max_option(CLI::App* cmd, CaseBase& base);

// One case per core: a case spends most of its time waiting on processes, but a wide tree or a
// fork storm keeps a core busy, and the race scenarios need theirs to stay deterministic.
int default_jobs();

}  // namespace reapcheck
