// The reaper interface: spawn an agent, later kill it and everything it started.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "reaper/agent.h"

namespace reaper {

// What a kill did, in order, for the report's evidence ("killpg(7, SIGTERM)").
struct KillReport {
  std::vector<std::string> steps;
  void note(std::string step) { steps.push_back(std::move(step)); }
};

class Reaper {
 public:
  virtual ~Reaper() = default;
  virtual Agent spawn(const AgentSpec& spec) = 0;
  // Kills the agent's tree. `grace` is how long members get to exit after SIGTERM.
  virtual KillReport kill(Agent& agent, std::chrono::milliseconds grace) = 0;
};

// What a strategy may need from the program that embeds it. Every field has a working default.
struct ReaperConfig {
  // cgroup: the cgroup v2 directory under which each agent gets a group of its own. Empty: the
  // calling process's own cgroup.
  std::string cgroup_parent;
  // How long past the grace period a kill that waits on another program (the harness's exec:
  // command, a supervisor after its SIGKILL) may take before it counts as hung. The caller
  // scales it with the tree: a kill command that runs ps once per process needs time in
  // proportion, and more on a loaded machine.
  std::chrono::milliseconds hung_after{5000};
};

struct ReaperInfo {
  std::string_view id;
  std::string_view technique;                            // one line, for `reapcheck list`
  std::unique_ptr<Reaper> (*make)(const ReaperConfig&);  // a plain function: constant data
  std::string_view needs;  // what it needs of the machine and its privileges, in one line
};

// The built-in strategies, in the order reports show them (registry.cpp).
const std::vector<ReaperInfo>& builtin_reapers();

// "SIGTERM" for SIGTERM; used in every report so signals read the same everywhere.
std::string signal_name(int sig);

}  // namespace reaper
