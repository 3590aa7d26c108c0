#include "case_runner.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "audit.h"
#include "bystanders.h"
#include "fixture.h"
#include "init_reaping.h"
#include "interrupt.h"
#include "line_reader.h"
#include "paths.h"
#include "ports.h"
#include "race.h"
#include "readiness.h"
#include "readiness_channel.h"
#include "reaper/deadline.h"
#include "reaper/pidfd.h"
#include "reaper/proc_table.h"
#include "reaper_host.h"
#include "result_json.h"
#include "sandbox.h"

namespace reapcheck {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// The fixture's own complaints, for a setup-error's reason.
std::string log_tail(const std::filesystem::path& log) {
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  if (s.size() > 2000) s = "..." + s.substr(s.size() - 2000);
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s.empty() ? "" : " — fixture log: " + s;
}

std::string describe(const ProcessRecord& p) {
  std::string argv;
  for (const auto& a : p.argv) argv += (argv.empty() ? "" : " ") + a;
  return p.role + " (pid " + std::to_string(p.pid) + ", pgid " + std::to_string(p.pgid) + ", sid " +
         std::to_string(p.sid) + ", state " + p.state + ": " + argv + ")";
}

// The part of a case that runs as PID 1 inside the sandbox.
// Ports handed to a command agent: its own network namespace, so any fixed range is free.
constexpr int kFirstPort = 41001;

class Inside {
 public:
  Inside(const Scenario& scenario, const ReaperChoice& reaper, const CaseOptions& options,
         std::filesystem::path scratch)
      : scenario_(scenario),
        reaper_(reaper),
        options_(options),
        scratch_(std::move(scratch)),
        transient_(as_set(scenario.transient_roles())),
        stopped_(as_set(scenario.stopped_roles())) {}

  CaseResult run() {
    CaseResult r;
    try {
      execute(r);
    } catch (const std::exception& e) {
      r.verdict = Verdict::setup_error;
      r.reason = e.what();
    }
    return r;
  }

 private:
  void execute(CaseResult& r) {
    init::start_reaping();  // PID 1 reaps orphans at once, as a real init would
    const auto worktree = scratch_ / "worktree";
    std::filesystem::create_directories(worktree);
    const auto log = scratch_ / "fixture.log";
    reaper::UniqueFd log_fd(::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
    const auto setup_deadline = Clock::now() + options_.ready;

    // Bystanders that exist before the agent does.
    Bystanders bystanders(scratch_);
    if (scenario_.has_bystander(BystanderKind::lookalike)) {
      // Not in the tree, but `tail -f <worktree>/dev.log` run from inside the worktree.
      bystanders.start("lookalike", {"tail", "-f", (worktree / "dev.log").string()}, worktree, true,
                       setup_deadline);
    }
    // Every case has one: a reaper that signals its own group or everything it can see
    // (kill(0), kill(-1)) must show up as hitting someone else.
    bystanders.start("reaper-group", {}, {}, false, setup_deadline);

    ReadinessChannel ready((scratch_ / "ready.sock").string());
    reaper::AgentSpec spec;
    spec.argv = prepare_fixture(scenario_, worktree);
    spec.cwd = worktree.string();
    spec.env = {"PATH=/usr/local/bin:/usr/bin:/bin",
                "LC_ALL=C",
                "REAPCHECK_READY_FD=" + std::to_string(ready.writer()),
                "REAPCHECK_READY_SOCKET=" + ready.socket_path(),
                "REAPCHECK_FIXTURE_LOG=" + log.string(),
                "REAPCHECK_WORKTREE=" + worktree.string()};
    spec.inherit_fds = {ready.writer()};
    spec.output_fd = log_fd.get();
    // A command agent gets its ports, and a home of its own so npm touches nothing outside.
    std::vector<std::pair<int, std::string>> ports;
    if (scenario_.agent) {
      int next = kFirstPort;
      for (const auto& [var, role] : scenario_.agent->ports) {
        ports.emplace_back(next, role);
        spec.env.push_back(var + "=" + std::to_string(next++));
      }
      std::filesystem::create_directories(scratch_ / "home");
      for (const std::string& e : {"HOME=" + (scratch_ / "home").string(),
                                   "npm_config_cache=" + (scratch_ / "npm-cache").string(),
                                   std::string("npm_config_update_notifier=false"),
                                   std::string("npm_config_fund=false")}) {
        spec.env.push_back(e);
      }
    }

    std::optional<reaper::AgentSpec> sibling;
    if (scenario_.has_bystander(BystanderKind::sibling_agent)) {
      // Its own worktree, which does not contain the agent's path as a substring.
      const auto sibling_tree = scratch_ / "sibling" / "worktree";
      std::filesystem::create_directories(sibling_tree);
      sibling.emplace();
      sibling->argv = bystanders.argv("sibling-agent");
      sibling->argv.push_back(sibling_tree.string());
      sibling->cwd = sibling_tree.string();
      sibling->env = bystanders.env();
      sibling->inherit_fds = {bystanders.ready_fd()};
      sibling->output_fd = log_fd.get();
    }

    const auto tree_start = Clock::now();
    ReaperHost host(reaper_, spec, sibling, options_.grace);
    ready.close_writer();  // the agent's tree holds the only write ends now: EOF means it died

    auto spawned = host.wait_spawned(setup_deadline);
    if (spawned.status == ReaperHost::Reply::Status::unsupported) {
      r.verdict = Verdict::skipped;
      r.reason = "the reaper cannot work here: " + spawned.error;
      return;
    }
    if (spawned.status != ReaperHost::Reply::Status::ok) {
      r.verdict = Verdict::setup_error;
      r.reason = "the reaper could not spawn the agent: " + spawned.error + log_tail(log);
      return;
    }
    if (spawned.sibling != 0) bystanders.adopt("sibling-agent", setup_deadline);

    std::vector<Member> members;
    if (!collect_members(ready, members, r, log)) return;
    if (!await_final_states(members, r, setup_deadline)) return;
    r.tree_ms = ms_since(tree_start);

    const reaper::ProcTable before = reaper::ProcTable::read();
    for (const Member& m : members) {
      if (const auto* p = before.find(m.pid)) r.members.push_back(record_of(*p, m.role));
    }
    std::optional<Race> race = plan_race(scenario_, members, before);

    DeathWatch deaths;
    watch_members(members, deaths);
    const auto kill_start = Clock::now();
    host.request_kill();
    auto killed = await_kill(host, race, bystanders, deaths, kill_start,
                             kill_start + options_.grace + options_.reaper_deadline);
    r.kill_ms = ms_since(kill_start);
    r.reaper_steps = killed.steps;

    Evidence evidence;
    evidence.reaper_timed_out = killed.status == ReaperHost::Reply::Status::timeout;
    evidence.reaper_failed = killed.status == ReaperHost::Reply::Status::error;

    std::set<pid_t> outside = bystanders.pids_with_ancestors_below(host.pid());
    outside.insert({1, host.pid(), ::getpid()});
    std::set<pid_t> sessions = {spawned.agent};  // the agent leads its own session
    for (const auto& m : r.members) sessions.insert(m.sid);
    AuditResult audited = audit(members, deaths, outside, kill_start, options_.settle,
                                options_.on_host ? &sessions : nullptr);
    r.survivors = std::move(audited.survivors);
    r.all_dead_ms = audited.all_dead_ms;
    bystanders.settle(Clock::now() + options_.settle);
    r.bystanders_hit = bystanders.hits();
    for (const auto& [port, role] : ports) {
      // The holder is looked up before the probe connects: the probe must not be what changes
      // the answer.
      const pid_t holder = port_holder(port);
      if (port_accepting(port)) r.open_ports.push_back({port, holder, role});
    }
    if (options_.on_host && !options_.keep) end_survivors(r.survivors, sessions);
    evidence.survivors = static_cast<int>(r.survivors.size());
    evidence.open_ports = static_cast<int>(r.open_ports.size());
    evidence.bystanders_hit = static_cast<int>(r.bystanders_hit.size());
    r.verdict = decide(evidence);
    r.reason = explain(r, killed);
    if (race) {
      r.race = race->record;
      if (!race->record.opened && r.verdict == Verdict::pass) {
        r.verdict = Verdict::skipped;  // a race that never ran proves nothing
        r.reason = "the race window never opened: " + race->record.detail;
      }
    }
  }

  bool collect_members(ReadinessChannel& ready, std::vector<Member>& members, CaseResult& r,
                       const std::filesystem::path& log) {
    const int expected = scenario_.member_count();
    const auto deadline = Clock::now() + options_.ready;
    while (static_cast<int>(members.size()) < expected) {
      auto got = ready.next(deadline);
      if (got.status != LineReader::Status::line) {
        r.verdict = Verdict::setup_error;
        r.reason =
            "the fixture announced " + std::to_string(members.size()) + " of " +
            std::to_string(expected) + " members before " +
            (got.status == LineReader::Status::eof ? "its tree exited" : "the readiness deadline") +
            log_tail(log);
        return false;
      }
      auto a = parse_announcement(got.line);
      if (!a) {
        r.verdict = Verdict::setup_error;
        r.reason = "malformed readiness line from the fixture: '" + got.line + "'";
        return false;
      }
      // The pid the member wrote is its own namespace's; the kernel told us who sent it.
      if (pid_t ours = translate_announced_pid(a->pid, got.sender); ours != 0) {
        a->pid = ours;
      } else if (is_transient(a->role)) {
        members.push_back(Member{0, a->role, {}});  // exited and reaped already, as it should
        continue;
      } else {
        r.verdict = Verdict::setup_error;
        r.reason = "cannot find member " + a->role + " (pid " + std::to_string(a->pid) +
                   " in its namespace, announced by pid " + std::to_string(got.sender) + ")";
        return false;
      }
      auto fd = reaper::pidfd_open(a->pid);
      if (!fd && is_transient(a->role)) {
        members.push_back(Member{a->pid, a->role, {}});  // gone already, as it should be
        continue;
      }
      if (!fd) {
        r.verdict = Verdict::setup_error;
        r.reason = "member " + a->role + " (pid " + std::to_string(a->pid) +
                   ") exited before the kill" + log_tail(log);
        return false;
      }
      members.push_back(Member{a->pid, a->role, std::move(*fd)});
    }
    return true;
  }

  // Transient members (a double fork's middle) must be gone, and self-stopping ones stopped,
  // before the kill: the tree the reaper meets is then the same every run.
  // On the host nothing ends a survivor for us: kill each through a pidfd, after checking it
  // is still in one of the tree's sessions (its pid may have been recycled since the audit).
  static void end_survivors(const std::vector<ProcessRecord>& survivors,
                            const std::set<pid_t>& sessions) {
    for (const auto& s : survivors) {
      auto fd = reaper::pidfd_open(s.pid);
      auto now = reaper::ProcTable::read_one(s.pid, reaper::Detail::stat);
      if (fd && now && sessions.count(now->sid) != 0) reaper::pidfd_signal(fd->get(), SIGKILL);
    }
  }

  static std::set<std::string> as_set(const std::vector<std::string>& roles) {
    return {roles.begin(), roles.end()};
  }

  bool is_transient(const std::string& role) const { return transient_.count(role) != 0; }

  bool await_final_states(std::vector<Member>& members, CaseResult& r, Clock::time_point deadline) {
    for (Member& m : members) {
      if (is_transient(m.role)) {
        if (!m.pidfd) continue;
        auto left = reaper::time_left(deadline);
        if (!reaper::pidfd_wait_exit(m.pidfd.get(), std::max(left, std::chrono::milliseconds(0)))) {
          r.verdict = Verdict::setup_error;
          r.reason = "transient member " + m.role + " did not exit before the kill";
          return false;
        }
      } else if (stopped_.count(m.role) != 0) {
        // No event announces a stop of a process that is not our child: watch /proc.
        for (;;) {
          auto p = reaper::ProcTable::read_one(m.pid, reaper::Detail::stat);
          if (p && p->state == 'T') break;
          if (!p || Clock::now() > deadline) {
            r.verdict = Verdict::setup_error;
            r.reason = "member " + m.role + " did not stop itself before the kill";
            return false;
          }
          ::sched_yield();
        }
      }
    }
    // The transient ones are gone: what the reaper must kill is the rest.
    std::erase_if(members, [&](const Member& m) { return is_transient(m.role); });
    return true;
  }

  std::string explain(const CaseResult& r, const ReaperHost::Reply& killed) const {
    const size_t total = r.members.size();
    switch (r.verdict) {
      case Verdict::reaper_timeout:
      case Verdict::reaper_error:
        return killed.error;
      case Verdict::leak: {
        std::string ports;
        for (const auto& p : r.open_ports) {
          ports += "port " + std::to_string(p.port) + " (" + p.role +
                   ") still accepting, held by " +
                   (p.pid != 0 ? "pid " + std::to_string(p.pid) : "an unknown process") + "; ";
        }
        if (r.survivors.empty()) return ports;
        std::string s = std::to_string(r.survivors.size()) +
                        " process(es) of the tree outlived the reaper by " +
                        std::to_string(options_.settle.count()) + " ms: ";
        s = ports + s;
        for (size_t i = 0; i < r.survivors.size(); ++i) {
          s += (i ? "; " : "") + describe(r.survivors[i]);
        }
        return s;
      }
      case Verdict::bystander_hit: {
        std::string s = std::to_string(r.bystanders_hit.size()) + " signal(s) reached bystanders: ";
        for (size_t i = 0; i < r.bystanders_hit.size(); ++i) {
          const auto& b = r.bystanders_hit[i];
          s += (i ? "; " : "") + b.role + " (pid " + std::to_string(b.pid) + ") got " + b.signal +
               " " + b.sender();
        }
        if (!r.survivors.empty()) {
          s += "; and " + std::to_string(r.survivors.size()) + " member(s) survived";
        }
        return s;
      }
      case Verdict::pass:
        return "all " + std::to_string(total) + " members dead " +
               std::to_string(static_cast<long>(r.all_dead_ms)) + " ms after the kill request";
      default:
        return {};
    }
  }

  const Scenario& scenario_;
  const ReaperChoice& reaper_;
  const CaseOptions& options_;
  std::filesystem::path scratch_;
  const std::set<std::string> transient_;  // roles that exit before the kill
  const std::set<std::string> stopped_;    // roles that stop themselves before the kill
};

CaseResult run_sandboxed(const Scenario& scenario, const ReaperChoice& reaper,
                         const CaseOptions& options) {
  ScratchDir scratch;
  SandboxOptions sandbox{options.ready + options.grace + options.reaper_deadline + options.settle +
                             std::chrono::milliseconds(5000),
                         scratch.path()};
  SandboxOutcome outcome = run_in_sandbox(
      [&] {
        return nlohmann::json(Inside(scenario, reaper, options, scratch.path()).run()).dump();
      },
      sandbox);
  CaseResult result;
  switch (outcome.status) {
    case SandboxOutcome::Status::finished:
      return nlohmann::json::parse(outcome.output).get<CaseResult>();
    case SandboxOutcome::Status::unavailable:
      result.verdict = Verdict::skipped;
      break;
    default:
      result.verdict = Verdict::setup_error;
  }
  result.reason = outcome.output;
  return result;
}

// How many times a race case runs before a window that never opened is reported as a skip.
constexpr int kRaceAttempts = 3;

CaseResult attempt_case(const Scenario& scenario, const ReaperChoice& reaper,
                        const CaseOptions& options) {
  try {
    if (options.on_host) {
      ScratchDir scratch;
      return Inside(scenario, reaper, options, scratch.path()).run();
    }
    return run_sandboxed(scenario, reaper, options);
  } catch (const Interrupted&) {
    throw;
  } catch (const std::exception& e) {
    CaseResult failed;
    failed.verdict = Verdict::setup_error;
    failed.reason = std::string("the harness failed: ") + e.what();
    return failed;
  }
}

}  // namespace

CaseResult run_case(const Scenario& scenario, std::string_view reaper_id,
                    const CaseOptions& options) {
  const auto started = Clock::now();
  const Expectation expectation =
      options.expect_pass ? Expectation{} : scenario.expectation_for(reaper_id);
  CaseResult result;
  const std::optional<ReaperChoice> reaper = resolve_reaper(reaper_id);
  if (!reaper) {
    result.verdict = Verdict::setup_error;
    result.reason = "unknown reaper '" + std::string(reaper_id) + "'";
  } else if (auto skip = scenario.skip.find(reaper_id); skip != scenario.skip.end()) {
    result.verdict = Verdict::skipped;
    result.reason = "declared not applicable: " + skip->second;
  } else if (!reaper->needs.empty() && find_in_path(reaper->needs).empty()) {
    result.verdict = Verdict::skipped;
    result.reason = reaper->needs + " is not installed (Debian package " + reaper->needs + ")";
  } else {
    result = retry_unopened_race([&] { return attempt_case(scenario, *reaper, options); },
                                 kRaceAttempts);
  }
  result.scenario = scenario.id;
  result.tags = scenario.tags;
  result.reaper = std::string(reaper_id);
  result.expected = expectation.verdict;
  result.expected_reason = expectation.reason;
  result.case_ms = ms_since(started);
  return result;
}

std::string host_run_refusal(const Scenario& scenario, std::string_view reaper_id) {
  if (scenario.race() != nullptr) {
    return "scenario '" + scenario.id +
           "' places decoys on recycled pids, which only the sandbox may do";
  }
  if (reaper_id.substr(0, 5) == "exec:" || reaper_id.substr(0, 10) == "supervise:") {
    return "an external reaper (" + std::string(reaper_id) + ") runs only inside the sandbox";
  }
  return {};
}

}  // namespace reapcheck
