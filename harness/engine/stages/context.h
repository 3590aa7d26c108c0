// What a case's stages share: its inputs, and the parts the stages set going that live until the
// case ends. A case is a straight sequence of stages over one context (case_body.cpp):
//   set_up → build_tree → kill_tree → audit_tree → collect_evidence
// each a function of the context that returns what it found, or throws Blocked when the case
// cannot go on.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "harness/catalog/catalog.h"
#include "harness/engine/bystanders/bystander_watch.h"
#include "harness/engine/bystanders/bystanders.h"
#include "harness/engine/case.h"
#include "harness/engine/census/census.h"
#include "harness/engine/census/processes.h"
#include "harness/engine/ledger/signal_evidence.h"
#include "harness/engine/ledger/signal_ledger.h"
#include "harness/engine/placement.h"
#include "harness/engine/reaper_side/inside_reaper.h"
#include "harness/engine/reaper_side/orchestrator.h"
#include "harness/engine/reaper_side/reaper_host.h"
#include "harness/engine/tree/announcements.h"
#include "harness/engine/tree/readiness_channel.h"
#include "harness/model/result.h"
#include "harness/model/scenario.h"
#include "harness/support/hold_clock.h"
#include "reaper/os/unique_fd.h"

namespace reapcheck {

// Thrown by a stage that finds the case cannot go on; observe_case() records it as the blocker.
struct Blocked {
  Blocker blocker;
};

[[noreturn]] void setup_failed(std::string reason);

struct CaseContext {
  using Clock = std::chrono::steady_clock;

  CaseContext(const Scenario& scenario, const ReaperChoice& reaper, const CaseOptions& options,
              const Placement& placement, std::filesystem::path scratch);

  // A project's own command, whose tree is observed rather than announced.
  bool observed() const { return scenario.agent && scenario.agent->observed(); }
  // Whether anything reports the kill done: not when the orchestrator is SIGKILLed instead.
  bool reported_done() const {
    return scenario.setup.request != CaseSetup::Request::orchestrator_killed;
  }
  bool is_transient(const std::string& role) const { return transient.count(role) != 0; }
  SignalLedger* ledger_or_null() { return ledger ? &*ledger : nullptr; }
  // The end of the tree's output, for a setup-error's reason ("" when it wrote nothing).
  std::string log_tail() const;
  // For a project's own command, the program it ran as its PATH resolved it (" (it ran
  // /usr/bin/flask)"), for a setup-error's reason: a shell may find another one. "" otherwise.
  std::string program_ran() const;

  // What the case runs.
  const Scenario& scenario;
  const ReaperChoice& reaper;
  const CaseOptions& options;
  const Placement& placement;
  const std::filesystem::path scratch;   // empty at the start; the case's to fill
  const std::filesystem::path worktree;  // the agent's folder: the project's own, or in scratch
  const std::filesystem::path log;       // the tree's output
  // The roles the scenario declares in a state of their own before the kill.
  const std::set<std::string> transient;         // exit before the kill
  const std::set<std::string> reaped_transient;  // of those, the ones their parent reaps
  const std::set<std::string> stopped;           // stop themselves
  const std::set<std::string> frozen;            // freeze their cgroup

  // Set by set_up().
  std::string path;  // the PATH of the reaper and the tree ([case] path)
  reaper::UniqueFd log_fd;
  // Until when the tree may take to be ready: renewed by each member announced, since a slow
  // machine is not a stalled tree.
  Clock::time_point setup_deadline;
  std::vector<std::pair<int, std::string>> ports;  // port → the role that listens on it

  // The running parts, in the order they start: they end in reverse (the ledger before the host
  // whose calls it holds, the host before the bystanders its kill must not reach).
  Census census;
  HoldClock hold_clock;  // the ledger's holds, which move the reaper's deadlines
  std::optional<Bystanders> bystanders;
  std::optional<ReadinessChannel> ready;
  std::unique_ptr<Orchestrator> host;
  std::optional<SignalLedger> ledger;
  InsideReaper inside;  // the agent's own kill command, for a from-agent case

  // What the stages after set-up reach the processes and the running parts through: the kernel,
  // and the parts above once set_up() has started them; or a unit test's fakes.
  const Processes* processes = &kernel_processes();
  Orchestrator* orchestrator = nullptr;       // the reaper host
  BystanderWatch* bystander_watch = nullptr;  // the bystanders
  // What starts the reaper host, which spawns the agent: a ReaperHost, or a unit test's fake.
  std::function<std::unique_ptr<Orchestrator>(const HostPlan&)> start_host =
      [](const HostPlan& plan) { return std::make_unique<ReaperHost>(plan); };
  Announcements* announcements = nullptr;           // the readiness channel
  std::unique_ptr<SignalEvidence> signal_evidence;  // the ledger's; none without a ledger
  // Whether the ledger also records the signals the kernel generates (cgroup.kill, a PID
  // namespace's end): only then does "no signal of the reaper's reached it" hold for every death.
  bool kernel_signals_seen = false;
};

}  // namespace reapcheck
