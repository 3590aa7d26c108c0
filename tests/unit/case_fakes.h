// Fakes for what a case's stages talk to (stages/context.h): the processes, the reaper host, the
// bystanders, the signal ledger, the placement. No process is started: a fake process is an
// entry of a table and an eventfd that stands for its pidfd (readable once it has exited, as a
// pidfd is, so a DeathWatch or reaper::pidfd_exited reads it as it reads the kernel's). Its pid
// is above the kernel's PID_MAX_LIMIT (4,194,304), so no real process can ever hold it, nor its
// session id: what reads the real /proc meets none of them.
#pragma once

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "harness/engine/bystanders/bystander_watch.h"
#include "harness/engine/census/processes.h"
#include "harness/engine/ledger/signal_evidence.h"
#include "harness/engine/placement.h"
#include "harness/engine/reaper_side/orchestrator.h"
#include "harness/engine/tree/announcements.h"
#include "reaper/os/pidfd.h"
#include "reaper/os/sys_error.h"

namespace reapcheck::testing {

inline constexpr pid_t kFakePids = 5'000'000;

// What the fakes saw asked of them, in order: the stages' sequence, checked by the tests.
using Calls = std::vector<std::string>;

inline reaper::UniqueFd exit_event() {
  reaper::UniqueFd fd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!fd) reaper::throw_sys("eventfd");
  return fd;
}

// Turns the eventfd readable: the process it stands for has exited.
inline void fire(int fd) {
  const std::uint64_t one = 1;
  if (::write(fd, &one, sizeof one) != sizeof one) reaper::throw_sys("write eventfd");
}

class FakeProcesses final : public Processes {
 public:
  struct Process {
    reaper::ProcInfo info;
    reaper::UniqueFd exit;  // the eventfd every pidfd on it duplicates
    bool exited = false;
    bool dying = false;              // exiting: lives_on() says no until it has
    bool dies_when_watched = false;  // exits as the audit first asks where it is
    Activity activity = Activity::settled;
    // Read as settled, it has run by the second look at its threads (woken by a thread read
    // after it) and exits then.
    bool runs_after_first_look = false;
    unsigned long long switches = 0;  // the times it left a CPU
    int looks = 0;                    // at its threads
    // Its pids from the outermost PID namespace in, as /proc/<pid>/status's NSpid gives them;
    // empty: in the case's namespace only.
    std::string nspid;
  };

  // A running process; returns a pidfd on it.
  reaper::UniqueFd add(pid_t pid, const std::string& comm, pid_t ppid, pid_t sid,
                       std::vector<std::string> argv = {}) {
    Process& p = procs_[pid];
    p.info.pid = pid;
    p.info.comm = comm;
    p.info.state = 'S';
    p.info.ppid = ppid;
    p.info.pgid = sid;
    p.info.sid = sid;
    p.info.argv = argv.empty() ? std::vector<std::string>{comm} : std::move(argv);
    p.exit = exit_event();
    return *hold(pid);
  }
  Process& at(pid_t pid) { return procs_.at(pid); }
  // The process exits and is reaped: gone from the table, its pidfds readable.
  void exit(pid_t pid) const {
    Process& p = procs_.at(pid);
    p.exited = true;
    fire(p.exit.get());
  }

  reaper::ProcTable table(reaper::Detail /*detail*/) const override {
    if (keeps_forking) fork_one();
    std::vector<reaper::ProcInfo> out;
    for (const auto& [pid, p] : procs_) {
      if (!p.exited) out.push_back(p.info);
    }
    return reaper::ProcTable::of(std::move(out));
  }
  std::optional<reaper::ProcInfo> one(pid_t pid, reaper::Detail /*detail*/) const override {
    const auto it = procs_.find(pid);
    if (it == procs_.end() || it->second.exited) return std::nullopt;
    return it->second.info;
  }
  std::optional<reaper::UniqueFd> hold(pid_t pid) const override {
    const auto it = procs_.find(pid);
    if (it == procs_.end() || it->second.exited) return std::nullopt;
    return reaper::dup_fd(it->second.exit.get());
  }
  bool lives_on(pid_t pid, int pidfd) const override {
    return !reaper::pidfd_exited(pidfd) && !procs_.at(pid).dying;
  }
  Activity activity(pid_t pid, int pidfd, const Census& /*census*/,
                    Clock::time_point /*horizon*/) const override {
    asked_.push_back(pid);
    if (reaper::pidfd_exited(pidfd)) return Activity::settled;
    Process& p = procs_.at(pid);
    if (p.dies_when_watched) {
      exit(pid);
      return Activity::dying;
    }
    return p.dying ? Activity::dying : p.activity;
  }
  ThreadRuns thread_runs(const std::vector<pid_t>& pids) const override {
    ThreadRuns out;
    for (pid_t pid : pids) {
      Process& p = procs_.at(pid);
      if (p.exited) continue;
      if (p.runs_after_first_look && p.looks++ == 1) {
        ++p.switches;
        exit(pid);
      }
      out.switches[pid] = p.switches;
    }
    return out;
  }
  bool signal(int pidfd, int sig) const override {
    signals_.emplace_back(pidfd, sig);
    return !reaper::pidfd_exited(pidfd);
  }
  bool reaped(int pidfd) const override { return reaper::pidfd_exited(pidfd); }
  std::string status_field(pid_t pid, std::string_view field) const override {
    const auto it = procs_.find(pid);
    if (field != "NSpid" || it == procs_.end() || it->second.exited) return {};
    return it->second.nspid.empty() ? std::to_string(pid) : it->second.nspid;
  }
  // The last pid given out: the highest one ever added.
  std::string last_pid() const override {
    return procs_.empty() ? "0" : std::to_string(procs_.rbegin()->first);
  }
  std::vector<std::pair<int, pid_t>> ports_held_by(const std::vector<pid_t>& pids) const override {
    std::vector<std::pair<int, pid_t>> out;
    for (const auto& [port, holder] : listening) {
      if (std::find(pids.begin(), pids.end(), holder) != pids.end()) out.emplace_back(port, holder);
    }
    return out;
  }

  const std::vector<pid_t>& asked() const { return asked_; }
  const std::vector<std::pair<int, int>>& signals() const { return signals_; }

  // Each look at the table finds one more process, running: a tree that never goes quiet.
  bool keeps_forking = false;
  std::map<int, pid_t> listening;  // port → the process listening on it

 private:
  void fork_one() const {
    const pid_t pid = kFakePids + 900 + static_cast<pid_t>(procs_.size());
    Process& p = procs_[pid];
    p.info = reaper::ProcInfo{{pid, "perl", 'R', kFakePids + 1, kFakePids + 1, kFakePids + 1, 1}};
    p.info.argv = {"perl", "tree.pl"};
    p.exit = exit_event();
  }

  mutable std::map<pid_t, Process> procs_;
  mutable std::vector<pid_t> asked_;  // whose activity the audit read
  mutable std::vector<std::pair<int, int>> signals_;
};

// The reaper host: its pid and pidfd are a fake process's; the kill does what `on_kill` says (the
// reaper's work, which the test plays) and is answered with `reply` at once.
class FakeOrchestrator final : public Orchestrator {
 public:
  FakeOrchestrator(FakeProcesses& processes, Calls& calls, pid_t pid)
      : processes_(processes),
        calls_(calls),
        pid_(pid),
        pidfd_(processes.add(pid, "reapcheck", 1, 1)),
        replies_(exit_event()) {}

  pid_t pid() const override { return pid_; }
  int pidfd() const override { return pidfd_.get(); }
  std::variant<reaper::UniqueFd, std::string> take_listener(
      Clock::time_point /*deadline*/) override {
    calls_.push_back("listener taken");
    return no_listener;
  }
  Reply wait_spawned(Clock::time_point /*deadline*/) override {
    calls_.push_back("spawn reply read");
    return spawn_reply;
  }
  void request_kill() override {
    calls_.push_back("kill requested");
    if (on_kill) on_kill();
    fire(replies_.get());
  }
  int reply_fd() const override { return replies_.get(); }
  Reply wait_killed(Clock::time_point /*deadline*/) override {
    calls_.push_back("reply read");
    return reply;
  }
  void force_quit() override {
    calls_.push_back("force-quit");
    processes_.exit(pid_);
    if (on_kill) on_kill();
  }

  std::function<void()> on_kill;
  Reply reply;
  // Why there is no signal ledger: a unit test starts none.
  std::string no_listener = "no listener in a unit test";
  Reply spawn_reply;

 private:
  FakeProcesses& processes_;
  Calls& calls_;
  pid_t pid_;
  reaper::UniqueFd pidfd_;
  reaper::UniqueFd replies_;
};

class FakeBystanders final : public BystanderWatch {
 public:
  explicit FakeBystanders(Calls& calls) : calls_(calls) {}

  std::vector<std::string> env() const override { return environment; }
  int ready_fd() const override { return ready; }
  void adopt(const std::string& role, Clock::time_point /*deadline*/) override {
    calls_.push_back(role + " adopted");
  }

  void await_begun(Clock::time_point /*deadline*/) override {
    calls_.push_back("bystanders begun");
  }
  std::set<pid_t> pids_with_ancestors_below(pid_t /*host*/) const override { return pids; }
  void note_attributes() override { calls_.push_back("bystanders noted"); }
  bool try_place_decoy(pid_t pid, const std::string& role) override {
    calls_.push_back(role + " decoy on " + std::to_string(pid));
    return decoy_fits;
  }
  void settle(Clock::time_point /*deadline*/) const override {
    calls_.push_back("bystanders settled");
  }
  std::vector<BystanderHit> hits() const override {
    calls_.push_back("bystanders read");
    return harm;
  }

  std::vector<std::string> environment = {"REAPCHECK_READY_FD=7"};
  int ready = 7;
  std::set<pid_t> pids;
  std::vector<BystanderHit> harm;
  bool decoy_fits = true;  // the id is free when a decoy is tried

 private:
  Calls& calls_;
};

class FakeLedger final : public SignalEvidence {
 public:
  bool reaper_reached(pid_t pid) const override { return reached.count(pid) != 0; }
  bool reached_or_kernel(pid_t pid) const override { return reached.count(pid) != 0; }
  std::vector<std::string> gone_before_the_reaper() const override { return gone_before; }
  bool sync_kernel(Clock::time_point /*deadline*/) override {
    if (calls != nullptr) calls->push_back("ledger synced");
    return synced;
  }
  uint64_t kernel_lost() const override { return lost; }
  void release_after_return() override {
    if (calls != nullptr) calls->push_back("ledger released");
    if (on_release) on_release();
  }
  std::vector<SignalRecord> records(Clock::time_point /*epoch*/) const override { return signals; }

  Calls* calls = nullptr;            // where to note each sync and release, when given
  std::function<void()> on_release;  // what the calls it held do once let go
  std::set<pid_t> reached;
  std::vector<std::string> gone_before;
  bool synced = true;
  uint64_t lost = 0;
  std::vector<SignalRecord> signals;
};

// The readiness channel: the lines queued, each with its sender, then `end` (EOF: the tree's
// every writer gone; or a timeout).
class FakeAnnouncements final : public Announcements {
 public:
  void announce(pid_t sender, const std::string& line) {
    lines.push_back({LineReader::Status::line, line, sender});
  }
  Message next(std::chrono::steady_clock::time_point /*deadline*/) override {
    if (lines.empty()) return {end, {}, 0};
    Message m = std::move(lines.front());
    lines.pop_front();
    return m;
  }

  std::deque<Message> lines;
  LineReader::Status end = LineReader::Status::eof;
};

// On this machine, as far as the audit is concerned: only the tree's sessions are the tree, so
// the audit's own scan of the real /proc for processes nobody announced finds none (no real
// process is in a fake session).
class FakePlacement final : public Placement {
 public:
  std::filesystem::path socket_dir(const std::filesystem::path& scratch) const override {
    return scratch;
  }
  const std::set<pid_t>* tree_sessions(const std::set<pid_t>& sessions) const override {
    sessions_ = sessions;
    return &sessions_;
  }
  void end_survivors(const std::vector<ProcessRecord>& survivors,
                     const std::set<pid_t>& /*sessions*/) const override {
    ended = survivors;
  }

  mutable std::vector<ProcessRecord> ended;

 private:
  mutable std::set<pid_t> sessions_;
};

}  // namespace reapcheck::testing
