// The reaper interface: spawn an agent, later kill it and everything it started.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "agent.h"

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

struct ReaperInfo {
  std::string_view id;
  std::string_view technique;         // one line, for `reapcheck list`
  std::unique_ptr<Reaper> (*make)();  // a plain function: the registry is constant data
};

const std::vector<ReaperInfo>& builtin_reapers();
const ReaperInfo* find_reaper(std::string_view id);

// "SIGTERM" for SIGTERM; used in every report so signals read the same everywhere.
std::string signal_name(int sig);

}  // namespace reaper
