#include "harness/cli/common.h"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "harness/catalog/catalog.h"
#include "harness/cli/did_you_mean.h"
#include "harness/cli/environment.h"
#include "harness/cli/selection.h"
#include "harness/engine/case.h"
#include "harness/model/reaper_name.h"
#include "harness/model/toml_reader.h"
#include "harness/sandbox/host_view.h"
#include "harness/sandbox/memory_bound.h"
#include "harness/support/version.h"

namespace reapcheck {
namespace {

std::string reaper_id_from(const std::string& arg) {
  if (arg.empty() || arg[0] != '@') return arg;
  std::ifstream in(arg.substr(1));
  if (!in) throw UsageError(fmt::format("cannot read the reaper id from '{}'", arg.substr(1)));
  std::string id;
  std::getline(in, id);
  return id;
}

// Why an `exec:`/`supervise:` reaper's command cannot start, or empty: its first word, when it is
// a plain word (no quote, no variable, no assignment: what a shell would take at face value), is
// a path that is no executable file, or a name neither in PATH nor one of sh's own commands.
// Refused once, before the first case, rather than a reaper-error in every case.
std::string unstartable_command(const std::string& id, const Layout& layout) {
  const std::string command(split_reaper_label(id).reaper);  // a label changes no command
  const auto colon = command.find(':');
  const std::string kind = command.substr(0, colon);
  if (colon == std::string::npos || (kind != "exec" && kind != "supervise")) return {};
  std::istringstream words(command.substr(colon + 1));
  std::string program;
  words >> program;
  if (program.empty() || program.find_first_of("'\"$`=\\;&|(){}<>*?~") != std::string::npos) {
    return {};
  }
  static const std::set<std::string, std::less<>> sh_own = {
      "kill", "exec", "true",  "false", "exit", "test",    "[",    "echo", "printf",
      "read", "wait", "trap",  "set",   "cd",   "command", "eval", ".",    ":",
      "if",   "for",  "while", "until", "case", "!",       "time", "env"};
  if (program.find('/') == std::string::npos) {
    if (sh_own.count(program) != 0 || !layout.find_program(program).empty()) return {};
    return fmt::format("'{}' is not a program found in PATH", program);
  }
  if (::access(program.c_str(), X_OK) == 0 && !std::filesystem::is_directory(program)) return {};
  return fmt::format("'{}' is not an executable file", program);
}

// Two reapers of one run that reports would show under one name (a JUnit classname): a label
// that is a catalogue id or another reaper's label.
void refuse_shared_names(const std::vector<std::string>& ids) {
  std::map<std::string, std::string> by_name;
  for (const auto& id : ids) {
    const auto [seen, added] = by_name.emplace(reaper_name(id), id);
    if (!added && seen->second != id) {
      throw UsageError(fmt::format(
          "--reaper {} and --reaper {} would both be named '{}' in the reports; give one a "
          "label of its own (--reaper NAME=exec:CMD)",
          seen->second, id, seen->first));
    }
  }
}

}  // namespace

ScenarioSet load_inputs(const GlobalArgs& global) {
  std::vector<std::string> reapers;
  for (const auto& r : reaper_catalog(global.layout)) reapers.push_back(r.id);
  return load_scenario_set(global.scenario_dir, reapers);
}

void note_broken(const ScenarioSet& set) {
  for (const auto& b : set.broken) {
    fmt::print(stderr, "reapcheck: scenario '{}' is left out: {}\n", b.id, b.error);
  }
}

std::vector<Scenario> select_scenarios(const ScenarioSet& set,
                                       const std::vector<std::string>& wanted,
                                       const std::vector<std::string>& tags) {
  // A run that selects a file that did not parse fails with its error; one that does not goes on.
  // A file that did not parse has no tags: --tag alone selects none of them.
  for (const auto& b : set.broken) {
    const bool named = std::any_of(wanted.begin(), wanted.end(),
                                   [&](const std::string& w) { return names(w, b.id); });
    if (named || (wanted.empty() && tags.empty())) throw InputError(b.error);
  }
  note_broken(set);
  if (set.scenarios.empty()) {
    throw UsageError(set.dir.string() + ": no scenario files (*.toml)");
  }
  return pick_scenarios(set, wanted, tags);
}

std::filesystem::path project_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::path out = std::filesystem::weakly_canonical(dir.empty() ? "." : dir, ec);
  if (ec || !std::filesystem::exists(out)) {
    throw UsageError(fmt::format("--dir {}: no such directory", dir));
  }
  if (!std::filesystem::is_directory(out)) {
    throw UsageError(fmt::format("--dir {}: not a directory", dir));
  }
  return out;
}

void require_usable_host() {
  if (std::string why = host_view_refusal(); !why.empty()) {
    throw UsageError(why + "; nothing was run");
  }
}

std::vector<std::string> select_reapers(const std::vector<std::string>& wanted, bool presets,
                                        const Layout& layout) {
  std::vector<std::string> catalogue;
  for (const auto& r : reaper_catalog(layout)) catalogue.push_back(r.id);
  std::vector<std::string> out;
  for (const auto& w : expand_reaper_globs(wanted, catalogue)) out.push_back(reaper_id_from(w));
  if (out.empty()) out = reaper_ids(ReaperChoice::Origin::builtin);
  if (presets) {
    for (auto& id : reaper_ids(ReaperChoice::Origin::preset)) out.push_back(std::move(id));
  }
  out = without_repeats(out);
  for (const auto& id : out) {
    if (std::string why = unstartable_command(id, layout); !why.empty()) {
      throw UsageError(fmt::format("--reaper {}: {}; nothing was run", id, why));
    }
    if (!known_reaper(id)) {
      throw UsageError(fmt::format("unknown reaper '{}'{} (valid: {})", id,
                                   did_you_mean(id, catalogue), valid_reaper_ids()));
    }
  }
  refuse_shared_names(out);
  return out;
}

bool use_colour(const GlobalArgs& global) {
  if (global.color != "auto") return global.color == "always";
  if (const std::optional<bool> asked = colour_from_environment()) return *asked;
  return ::isatty(STDOUT_FILENO) != 0;
}

std::vector<CatalogueEntry> catalogue_entries(const Layout& layout) {
  std::vector<CatalogueEntry> out;
  for (const auto& r : reaper_catalog(layout)) out.push_back({r.id, r.technique});
  return out;
}

std::map<std::string, ScenarioNotes> notes_for(const std::vector<Scenario>& scenarios,
                                               const ExpectationBook& book, const Layout& layout) {
  const auto catalogue = catalogue_entries(layout);
  std::map<std::string, ScenarioNotes> out;
  for (const auto& s : scenarios) out[s.id] = scenario_notes(s, book, catalogue);
  return out;
}

RunInfo run_info(std::vector<std::pair<std::string, std::string>> options) {
  RunInfo info;
  info.version = std::string(reapcheck_version());
  utsname u{};
  if (::uname(&u) == 0) {
    info.kernel = fmt::format("{} {} {}", u.sysname, u.release, u.machine);
    info.host = u.nodename;
  }
  info.started = fmt::format("{:%Y-%m-%dT%H:%M:%S}", fmt::gmtime(std::time(nullptr)));
  info.options = std::move(options);
  return info;
}

int default_jobs() {
  const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

void Timing::apply_to(CaseOptions& options) const {
  options.grace = std::chrono::milliseconds(grace_ms);
  options.settle = std::chrono::milliseconds(settle_ms);
}

CaseOptions CaseBase::options(const GlobalArgs& global) const {
  CaseOptions options;
  options.layout = global.layout;
  options.agent_path = global.layout.search_path;
  options.keep_trace = keep_trace;
  options.memory_max = memory_bound();
  return options;
}

std::uint64_t CaseBase::memory_bound() const {
  return memory_max != 0 ? memory_max : default_memory_max();
}

void add_memory_max_option(CLI::App* cmd, CaseBase& base) {
  constexpr std::uint64_t kLeast = std::uint64_t{64} << 20;
  cmd->add_option("--memory-max", base.memory_max,
                  "The most memory each case may use, what it keeps in its tmpfs mounts (/tmp, "
                  "its scratch) included, such as 512M or 2G (default: a quarter of this "
                  "machine's, " +
                      memory_text(default_memory_max()) +
                      "). A case that goes over it ends as a setup-error that says so")
      ->type_name("SIZE")
      ->transform(CLI::AsSizeValue(false).description(""))
      ->check(CLI::Validator(
          [](const std::string& bytes) -> std::string {
            if (std::stoull(bytes) >= kLeast) return {};
            return "at least 64M: a case's own processes (the case runner, the reaper host, "
                   "the bystanders) take some of it";
          },
          "at least 64M"));
}

void add_keep_trace_option(CLI::App* cmd, CaseBase& base) {
  cmd->add_flag("--keep-trace", base.keep_trace,
                "Take the kernel signal trace's tracing instance another reapcheck process left, "
                "and leave it for the next, rather than make and remove one (a quarter of a "
                "second each): for many short runs in a row, such as CTest's matrix tests. "
                "`reapcheck clean` removes the kept ones");
}

void add_timing_options(CLI::App* cmd, Timing& timing) {
  cmd->add_option("--grace", timing.grace_ms, "Grace period the reapers give after SIGTERM, in ms")
      ->type_name("MS")
      ->capture_default_str()
      ->check(CLI::Range(0, 600000));
  cmd->add_option("--settle", timing.settle_ms,
                  "The longest the tree is watched after the reaper returns, in ms; the watch "
                  "ends sooner once nothing more can happen to it (all dead, or every live "
                  "process idle, no timer of its own due before the bound, and not dying, none "
                  "of the reaper's still running). A member "
                  "dying when it passes (SIGKILL or another fatal signal pending, exiting) is "
                  "waited for up to 10 s more")
      ->type_name("MS")
      ->capture_default_str()
      ->check(CLI::Range(1, 600000));
}

}  // namespace reapcheck
