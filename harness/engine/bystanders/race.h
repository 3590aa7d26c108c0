// The PID-reuse race: while the reaper works, watch the target member (or the target's whole
// process group) exit, then put a decoy on the freed pid (or pgid) before the reaper is done.
// Whether that window opened is recorded; a race that never ran proves nothing.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <vector>

#include "harness/engine/bystanders/bystander_watch.h"
#include "harness/engine/census/processes.h"
#include "harness/engine/ledger/signal_ledger.h"
#include "harness/engine/reaper_side/orchestrator.h"
#include "harness/engine/tree/audit.h"
#include "harness/model/result.h"
#include "harness/model/scenario.h"
#include "reaper/os/proc_table.h"

namespace reapcheck {

struct Race {
  BystanderSpec spec;
  struct Trigger {
    int pidfd;
    pid_t pid;
  };
  std::vector<Trigger> triggers;  // the members that must all have exited first
  std::vector<int> trigger_pidfds() const {
    std::vector<int> out;
    for (const Trigger& t : triggers) out.push_back(t.pidfd);
    return out;
  }
  std::vector<int> held;  // pidfds of the members to release once the race is staged
  std::vector<pid_t> held_pids;
  RaceRecord record;
};

// The race the scenario asks for, aimed at the ids `before` shows; empty when it asks none.
std::optional<Race> plan_race(const Scenario& scenario, const std::vector<Member>& members,
                              const reaper::ProcTable& before);

// What the kill is awaited with: the reaper host, whose reply ends it; the bystanders a decoy
// joins; the members' deaths, timed meanwhile; the ledger (or null), told when the race has been
// staged (SignalLedger::arm_race); the processes, read to see an id freed.
struct KillWatch {
  Orchestrator& host;
  BystanderWatch& bystanders;
  DeathWatch& deaths;
  SignalLedger* ledger;
  const Processes& processes;
};

// Waits for the reaper host's reply to "kill", running `race` (when there is one) meanwhile.
Orchestrator::Reply await_kill(const KillWatch& with, std::optional<Race>& race,
                               std::chrono::steady_clock::time_point since,
                               std::chrono::steady_clock::time_point deadline);

// Runs `attempt` (one whole case, observed but not yet judged) again while its race's window did
// not open and nothing else decided the case, up to `max_attempts` times in all, and records the
// count in race->attempts. Whether the window opens is up to the scheduler as well as the
// reaper: the target must be reaped by its parent while the reaper is still at work, and on a
// loaded machine that parent may not run in time. An unopened window is a failed set-up, not a
// verdict; a case the evidence already decides (a leak, a bystander hit), or one with no race, is
// returned as it is.
CaseObservation retry_unopened_race(const std::function<CaseObservation()>& attempt,
                                    int max_attempts);

}  // namespace reapcheck
