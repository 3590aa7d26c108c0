// Reapers that are other programs: a kill command run at kill time, or a supervisor the agent
// runs under.
#pragma once

#include <memory>
#include <string>

#include "reaper/reaper.h"

namespace reaper {

// CMD runs through sh at kill time with {pid}, {pgid}, {sid}, {worktree} and {grace_s} filled in.
std::unique_ptr<Reaper> make_exec_command(std::string command);

// The agent runs as `CMD <agent argv...>`; killing sends SIGTERM to CMD, SIGKILL after the grace.
std::unique_ptr<Reaper> make_supervise(std::string command);

}  // namespace reaper
