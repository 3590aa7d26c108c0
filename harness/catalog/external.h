// Reapers that are other people's programs, given to the harness as commands: `exec:CMD` runs
// CMD at kill time with the agent's ids filled in, as a kill command or a CLI would be run;
// `supervise:CMD` starts the agent under CMD (a supervisor such as tini) and kills by signalling
// the supervisor. They live in the harness, not in the reaper library: running a user's command
// is the harness's business, and the library stays free of Boost.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>

#include "reaper/reaper.h"

namespace reapcheck {

// CMD runs through sh (started with Boost.Process v2) at kill time with {pid}, {pgid}, {sid},
// {worktree} and {grace_s} filled in, each shell-quoted: a worktree path with spaces, quotes or
// $(...) stays one word and runs nothing. Its stderr is kept for the report; past the grace
// period plus `config.hung_after`, its process group is killed and the kill is a Timeout.
std::unique_ptr<reaper::Reaper> make_exec_command(std::string command,
                                                  const reaper::ReaperConfig& config);

// The agent runs as `CMD <agent argv...>`; killing sends SIGTERM to CMD, SIGKILL after the grace
// (then waits for it up to `config.hung_after`).
std::unique_ptr<reaper::Reaper> make_supervise(std::string command,
                                               const reaper::ReaperConfig& config);

// The grace period as {grace_s} gives it: seconds, "0.300000".
std::string grace_seconds(std::chrono::milliseconds grace);

// `text` as one word of sh: in single quotes, each ' written as '\''.
std::string shell_quote(const std::string& text);

// `command` with every {name} of `values` replaced by its value, shell-quoted, in one pass: a
// value that itself contains "{pid}" is not substituted again. Unknown {names} stay as written.
std::string fill_placeholders(const std::string& command,
                              const std::map<std::string, std::string>& values);

}  // namespace reapcheck
