#include "harness/cli/cli.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "harness/cli/commands.h"
#include "harness/cli/did_you_mean.h"
#include "harness/cli/environment.h"
#include "harness/model/toml_reader.h"
#include "harness/support/exit_status.h"
#include "harness/support/interrupt.h"
#include "harness/support/version.h"
#include "reports/file_output.h"

namespace reapcheck {
namespace {

std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
  return names;
}

// The first word that is neither a global option nor its value: the subcommand the user meant.
std::string typed_command(const CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string word = argv[i];
    if (word.rfind("--", 0) == 0 && word.find('=') == std::string::npos) {
      const CLI::Option* o = app.get_option_no_throw(word);
      if (o != nullptr && o->get_type_size() > 0) ++i;  // its value follows
      continue;
    }
    if (word.rfind('-', 0) == 0) continue;
    return word;
  }
  return {};
}

// "reapcheck rn": exit 2 with the subcommands and the closest one, before CLI11's generic error.
void check_command(const CLI::App& app, int argc, char** argv) {
  const std::string typed = typed_command(app, argc, argv);
  const auto names = command_names(app);
  if (typed.empty() || std::find(names.begin(), names.end(), typed) != names.end()) return;
  // "--colour never list": the unknown word is the value of a mistyped option before it.
  std::vector<std::string> options;
  for (const CLI::Option* o : app.get_options()) {
    for (const std::string& n : o->get_lnames()) options.push_back("--" + n);
  }
  for (int i = 1; i < argc && typed != argv[i]; ++i) {
    const std::string word = std::string(argv[i]).substr(0, std::string(argv[i]).find('='));
    if (word.rfind("--", 0) == 0 &&
        std::find(options.begin(), options.end(), word) == options.end()) {
      throw UsageError(fmt::format("unknown option '{}'{} (before a command; options: {})", word,
                                   did_you_mean(word, options), fmt::join(options, ", ")));
    }
  }
  throw UsageError(fmt::format("unknown command '{}'{} (commands: {})", typed,
                               did_you_mean(typed, names), fmt::join(names, ", ")));
}

// For an option CLI11 did not expect ("--reapr"), the closest option of the command it was given
// to: " (did you mean '--reaper'?)".
std::string option_hint(const CLI::App& app, const std::vector<char*>& argv,
                        const CLI::ParseError& e) {
  if (dynamic_cast<const CLI::ExtrasError*>(&e) == nullptr) return {};
  std::vector<std::string> names;
  std::vector<const CLI::App*> apps = {&app};
  for (const CLI::App* sub : app.get_subcommands()) apps.push_back(sub);  // the one parsed
  for (const CLI::App* a : apps) {
    for (const CLI::Option* o : a->get_options()) {
      for (const std::string& n : o->get_lnames()) names.push_back("--" + n);
    }
  }
  std::string hint;
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string word(argv[i]);
    const std::string name = word.substr(0, word.find('='));
    if (name.rfind("--", 0) != 0 || name == "--") continue;
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      hint += did_you_mean(name, names);
    }
  }
  return hint;
}

void add_global_options(CLI::App& app, GlobalArgs& global) {
  app.add_option("--scenarios", global.scenario_dir,
                 "Directory of scenario files, with the reapers' expectations in its "
                 "expectations/ folder (default: $REAPCHECK_SCENARIOS, else those installed "
                 "beside reapcheck)")
      ->type_name("DIR")
      ->capture_default_str();
  app.add_option("--color,--colour", global.color,
                 "Colour on the terminal: auto (a terminal, unless NO_COLOR is set; FORCE_COLOR "
                 "forces it), always or never")
      ->type_name("WHEN")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  app.set_version_flag("--version", fmt::format("reapcheck {}", reapcheck_version()));
}

// `reapcheck help [CMD]`: the same text as `reapcheck CMD --help`.
Command help_command(CLI::App& app) {
  auto topic = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("help", "Show the help of reapcheck or of one command");
  cmd->footer("Example:\n  reapcheck help run   # the same as: reapcheck run --help");
  cmd->add_option("command", *topic, "The command to explain")->type_name("CMD");
  return {cmd, [&app, topic] {
            if (topic->empty()) {
              // Not app.help(): with `help` parsed, CLI11 hands that to the parsed subcommand.
              fmt::print("{}", app.get_formatter()->make_help(&app, app.get_name(),
                                                              CLI::AppFormatMode::Normal));
              return 0;
            }
            const auto names = command_names(app);
            if (std::find(names.begin(), names.end(), *topic) == names.end()) {
              throw UsageError(fmt::format("no command '{}'{} (commands: {})", *topic,
                                           did_you_mean(*topic, names), fmt::join(names, ", ")));
            }
            fmt::print("{}", app.get_subcommand(*topic)->help(app.get_name()));
            return 0;
          }};
}

int run_parsed(const std::vector<Command>& commands) {
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
  } catch (const ReportWriteError& e) {
    fmt::print(stderr, "reapcheck: cannot write {}\n", e.what());
    return kExitUsage;
  } catch (const Interrupted& e) {
    fmt::print(stderr, "reapcheck: {}\n", e.what());
    return kExitInterrupted;
  }
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
  GlobalArgs global{layout_from_environment()};
  global.scenario_dir = global.layout.scenarios.string();
  add_global_options(app, global);
  const std::vector<Command> commands = {list_command(app, global),      run_command(app, global),
                                         reproduce_command(app, global), watch_command(app, global),
                                         report_command(app, global),    bench_command(app, global),
                                         clean_command(app, global),     help_command(app)};
  try {
    check_command(app, argc, argv);
  } catch (const UsageError& e) {
    fmt::print(stderr, "reapcheck: {}\n", e.what());
    return kExitUsage;
  }
  // The words after `--` are a command of the user's, whatever they look like: CLI11 never sees
  // them.
  std::vector<char*> ours(argv, argv + argc);
  if (auto dashes = std::find_if(ours.begin() + 1, ours.end(),
                                 [](const char* w) { return std::string_view(w) == "--"; });
      dashes != ours.end()) {
    global.command.emplace(dashes + 1, ours.end());
    ours.erase(dashes, ours.end());
    if (const std::string typed = typed_command(app, static_cast<int>(ours.size()), ours.data());
        typed != "reproduce" && typed != "watch") {
      fmt::print(stderr, "reapcheck: only 'reproduce' and 'watch' take a command after '--'\n");
      return kExitUsage;
    }
  }
  try {
    app.parse(static_cast<int>(ours.size()), ours.data());
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --version
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "reapcheck: {}{}\nRun with --help for more information.\n", e.what(),
               option_hint(app, ours, e));
    return kExitUsage;
  }
  return run_parsed(commands);
}

}  // namespace reapcheck
