#include "case_runner.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "audit.h"
#include "fixture.h"
#include "interrupt.h"
#include "line_reader.h"
#include "readiness.h"
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
class Inside {
 public:
  Inside(const Scenario& scenario, const reaper::ReaperInfo& reaper, const CaseOptions& options,
         std::filesystem::path scratch)
      : scenario_(scenario), reaper_(reaper), options_(options), scratch_(std::move(scratch)) {}

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
    const auto worktree = scratch_ / "worktree";
    std::filesystem::create_directories(worktree);
    const auto log = scratch_ / "fixture.log";

    reaper::Pipe ready = reaper::make_pipe();
    reaper::UniqueFd log_fd(::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
    reaper::AgentSpec spec;
    spec.argv = prepare_fixture(scenario_, scratch_);
    spec.cwd = worktree.string();
    spec.env = {"PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C",
                "REAPCHECK_READY_FD=" + std::to_string(ready.write.get()),
                "REAPCHECK_FIXTURE_LOG=" + log.string(), "REAPCHECK_WORKTREE=" + worktree.string()};
    spec.inherit_fds = {ready.write.get()};
    spec.output_fd = log_fd.get();

    ReaperHost host(reaper_, spec, options_.grace);
    ready.write.reset();  // the agent's tree holds the only write ends now: EOF means it died

    auto spawned = host.wait_spawned(Clock::now() + options_.ready);
    if (spawned.status != ReaperHost::Reply::Status::ok) {
      r.verdict = Verdict::setup_error;
      r.reason = "the reaper could not spawn the agent: " + spawned.error + log_tail(log);
      return;
    }

    std::vector<Member> members;
    if (!collect_members(ready.read.get(), members, r, log)) return;

    const reaper::ProcTable before = reaper::ProcTable::read();
    for (const Member& m : members) {
      if (const auto* p = before.find(m.pid)) r.members.push_back(record_of(*p, m.role));
    }

    const auto kill_start = Clock::now();
    host.request_kill();
    auto killed = host.wait_killed(kill_start + options_.grace + options_.reaper_deadline);
    r.kill_ms = ms_since(kill_start);
    r.reaper_steps = killed.steps;

    Evidence evidence;
    evidence.reaper_timed_out = killed.status == ReaperHost::Reply::Status::timeout;
    evidence.reaper_failed = killed.status == ReaperHost::Reply::Status::error;

    AuditResult audited = audit(members, {1, host.pid()}, kill_start, options_.settle);
    r.survivors = std::move(audited.survivors);
    r.all_dead_ms = audited.all_dead_ms;
    evidence.survivors = static_cast<int>(r.survivors.size());
    r.verdict = decide(evidence);
    r.reason = explain(r, killed);
  }

  bool collect_members(int ready_fd, std::vector<Member>& members, CaseResult& r,
                       const std::filesystem::path& log) {
    const int expected = scenario_.member_count();
    LineReader lines(ready_fd);
    const auto deadline = Clock::now() + options_.ready;
    while (static_cast<int>(members.size()) < expected) {
      auto got = lines.next(deadline);
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
      auto fd = reaper::pidfd_open(a->pid);
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

  std::string explain(const CaseResult& r, const ReaperHost::Reply& killed) const {
    const size_t total = r.members.size();
    switch (r.verdict) {
      case Verdict::reaper_timeout:
      case Verdict::reaper_error:
        return killed.error;
      case Verdict::leak: {
        std::string s = std::to_string(r.survivors.size()) +
                        " process(es) of the tree outlived the reaper by " +
                        std::to_string(options_.settle.count()) + " ms: ";
        for (size_t i = 0; i < r.survivors.size(); ++i) {
          s += (i ? "; " : "") + describe(r.survivors[i]);
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
  const reaper::ReaperInfo& reaper_;
  const CaseOptions& options_;
  std::filesystem::path scratch_;
};

CaseResult run_sandboxed(const Scenario& scenario, const reaper::ReaperInfo& reaper,
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

}  // namespace

CaseResult run_case(const Scenario& scenario, std::string_view reaper_id,
                    const CaseOptions& options) {
  const auto started = Clock::now();
  const Expectation expectation = scenario.expectation_for(reaper_id);
  CaseResult result;
  const reaper::ReaperInfo* reaper = reaper::find_reaper(reaper_id);
  if (reaper == nullptr) {
    result.verdict = Verdict::setup_error;
    result.reason = "unknown reaper '" + std::string(reaper_id) + "'";
  } else {
    try {
      result = run_sandboxed(scenario, *reaper, options);
    } catch (const Interrupted&) {
      throw;
    } catch (const std::exception& e) {
      result.verdict = Verdict::setup_error;
      result.reason = std::string("the harness failed: ") + e.what();
    }
  }
  result.scenario = scenario.id;
  result.reaper = std::string(reaper_id);
  result.expected = expectation.verdict;
  result.expected_reason = expectation.reason;
  result.case_ms = ms_since(started);
  return result;
}

}  // namespace reapcheck
