// Every reaper a run can name: the built-in strategies (reaper/), the presets for well-known
// external reapers (presets.cpp), and any `exec:CMD` or `supervise:CMD` given by the user.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/support/layout.h"
#include "reaper/reaper.h"

namespace reapcheck {

// Something a reaper needs installed: a program on PATH, or a file (an installed package's
// directory), and how to get it. A case whose reaper lacks one is skipped with this reason.
struct Need {
  std::string what;  // a program name, or an absolute path
  std::string how;   // "Debian package supervisor", "scripts/setup.sh runs npm ci there"
};

struct ReaperChoice {
  enum class Origin {
    builtin,  // a strategy of the reaper library
    preset,   // a well-known external reaper, as its users run it
    command,  // exec:CMD or supervise:CMD from the command line
  };
  Origin origin = Origin::builtin;
  std::string id;
  std::string technique;  // one line, for `reapcheck list`
  std::function<std::unique_ptr<reaper::Reaper>(const reaper::ReaperConfig&)> make;
  std::vector<Need> needs;  // what must be installed for it to run at all
  // The agent runs under the reaper's own process (supervise:), which is then no member.
  bool supervises = false;
  // For an exec: reaper, its kill command, {pid} and the rest not yet filled in: what a program
  // runs on its own tree when the kill is requested from inside it.
  std::string command;
  // What the technique needs of the machine and its privileges (root, cgroup v2, a PID
  // namespace, a kernel version), in one line, for the guide to choosing a reaper.
  std::string requires_what;
  // The shortest grace period the reaper's own timers keep: a case gives it at least this (a
  // supervisor that counts its stop timeout in whole seconds cannot finish in 300 ms).
  std::chrono::milliseconds min_grace{0};
};

// The first of `needs` that is missing here (a program: in layout.search_path), as a reason
// ("supervisord is not installed (Debian package supervisor)"); empty when all are there.
std::string missing_need(const std::vector<Need>& needs, const Layout& layout);

// The built-ins, then the presets (their scripts in layout.fixtures), in the order reports show
// them.
std::vector<ReaperChoice> reaper_catalog(const Layout& layout);
// The catalog's ids, which are the same whatever the layout.
std::vector<std::string> reaper_ids(ReaperChoice::Origin origin);
bool known_reaper(std::string_view id);  // in the catalog, or an exec:CMD / supervise:CMD

// Resolves an id from the catalog, or an `exec:CMD` / `supervise:CMD`; empty when unknown.
std::optional<ReaperChoice> resolve_reaper(std::string_view id, const Layout& layout);

// "pgroup, ps-walk, ..., or exec:CMD / supervise:CMD", for error messages.
std::string valid_reaper_ids();

// The presets (presets.cpp): `exec:` and `supervise:` commands with an id and what they need.
std::vector<ReaperChoice> presets(const Layout& layout);
ReaperChoice exec_choice(std::string id, std::string command, ReaperChoice::Origin origin,
                         std::vector<Need> needs = {});
ReaperChoice supervise_choice(std::string id, std::string command, ReaperChoice::Origin origin,
                              std::vector<Need> needs = {});

}  // namespace reapcheck
