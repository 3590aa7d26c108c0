#include "harness/engine/bystanders/bystanders.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "harness/engine/census/processes.h"
#include "harness/engine/tree/readiness.h"
#include "harness/sandbox/init_reaping.h"
#include "harness/sandbox/pid_placement.h"
#include "reaper/os/backoff.h"
#include "reaper/os/cgroup_fs.h"
#include "reaper/os/clone.h"
#include "reaper/os/deadline.h"
#include "reaper/os/pidfd.h"
#include "reaper/os/proc_table.h"
#include "reaper/os/read_file.h"
#include "reaper/os/sys_error.h"
#include "reaper/reaper.h"

namespace reapcheck {

Bystanders::Bystanders(std::string helper, const std::filesystem::path& scratch, Census& census,
                       const std::filesystem::path& sockets)
    : census_(census),
      helper_(std::move(helper)),
      log_(scratch / "bystander-signals.log"),
      ready_(((sockets.empty() ? scratch : sockets) / "bystanders.sock").string()) {
  std::ofstream(log_).close();
}

Bystanders::~Bystanders() {
  for (const Entry& e : entries_) {
    reaper::pidfd_try_signal(e.pidfd.get(), SIGKILL);
  }
}

void Bystanders::add(pid_t pid, const std::string& role, bool our_child) {
  auto fd = reaper::pidfd_open(pid);
  if (!fd) throw std::runtime_error("bystander " + role + " exited before it was watched");
  census_.add_bystander(pid, role, fd->get());
  entries_.push_back(Entry{pid, role, std::move(*fd), our_child});
}

std::string Bystanders::role_of(pid_t pid) const {
  for (const Entry& e : entries_) {
    if (e.pid == pid) return e.role;
  }
  return {};
}

void Bystanders::start(const std::string& role, const std::vector<std::string>& extra_args,
                       const std::filesystem::path& cwd, bool own_session,
                       Clock::time_point deadline) {
  await(begin(role, extra_args, cwd, own_session), deadline);
}

void Bystanders::await_begun(Clock::time_point deadline) {
  for (pid_t pid : begun_) await(pid, deadline);
  begun_.clear();
}

bool Bystanders::try_place_decoy(pid_t pid, const std::string& role) {
  const Launch l = launch(role, {}, {}, true);
  init::BlockChildSignals block;
  // The decoy leads its session and group before this returns: the race is staged next, which
  // lets the reaper's held call through, and a decoy still on its way to setsid() would leave
  // the id empty for it (a stray signal where a hit was due).
  reaper::Pipe settled = reaper::make_pipe(true);
  pid_t child = fork_at_pid(pid);
  if (child < 0) {
    if (errno == EEXIST) return false;
    reaper::throw_sys("start decoy on pid " + std::to_string(pid));
  }
  if (child == 0) {
    // A copy of PID 1's memory, undumpable as PID 1 is: a reaper reading the decoy's /proc
    // files once it is settled, before its exec, must find them readable, as a process's are.
    ::prctl(PR_SET_DUMPABLE, 1);
    exec_helper(l, settled.write.get());
  }
  settled.write.reset();
  char byte = 0;
  while (::read(settled.read.get(), &byte, 1) < 0 && errno == EINTR) {
  }
  init::watch(child);
  add(child, role, true);
  return true;
}

void Bystanders::adopt(const std::string& role, Clock::time_point deadline) {
  auto announced = [&] {
    return std::find_if(announced_.begin(), announced_.end(),
                        [&](const auto& a) { return a.second == role; });
  };
  while (announced() == announced_.end()) read_announcement(role, deadline);
  add(announced()->first, role, false);
}

void Bystanders::await(pid_t pid, Clock::time_point deadline) {
  std::erase(begun_, pid);
  while (announced_.count(pid) == 0) read_announcement("pid " + std::to_string(pid), deadline);
}

void Bystanders::read_announcement(const std::string& awaited, Clock::time_point deadline) {
  auto got = ready_.next(deadline);
  if (got.status != LineReader::Status::line) {
    std::string why = "bystander " + awaited + " did not announce itself";
    if (::access(helper_.c_str(), X_OK) != 0) {
      why += " (is " + helper_ + " built?)";
    } else if (got.status == LineReader::Status::eof) {
      why += ": every process that could have announced it had ended (killed?)";
    } else {
      why += " in time";
    }
    throw std::runtime_error(why);
  }
  if (auto a = parse_announcement(got.line)) {
    announced_[translate_announced_pid(kernel_processes(), a->pid, got.sender)] = a->role;
  }
}

std::set<pid_t> Bystanders::pids_with_ancestors_below(pid_t host) const {
  // Only the living: a bystander's number, once it is gone, may hold anything — a process of the
  // tree placed there, say — and is no bystander's.
  std::set<pid_t> out;
  const reaper::ProcTable table = reaper::ProcTable::read("/proc", reaper::Detail::stat);
  for (const Entry& e : entries_) {
    if (reaper::pidfd_exited(e.pidfd.get())) continue;
    out.insert(e.pid);
    const reaper::ProcInfo* p = table.find(e.pid);
    while (p != nullptr && p->ppid != host && p->ppid > 1) {
      out.insert(p->ppid);
      p = table.find(p->ppid);
    }
  }
  return out;
}

std::set<pid_t> Bystanders::pids() const {
  std::set<pid_t> out;
  for (const Entry& e : entries_) out.insert(e.pid);
  return out;
}

namespace {

// The signals queued for `pid` and not yet delivered (SigPnd | ShdPnd in /proc/<pid>/status);
// 0 when there are none or the process is gone.
unsigned long long pending_signals(pid_t pid) {
  unsigned long long pending = 0;
  for (const char* field : {"SigPnd", "ShdPnd"}) {
    const std::string mask = reaper::status_field(pid, field);
    if (!mask.empty()) pending |= std::stoull(mask, nullptr, 16);
  }
  return pending;
}

// How a watched child of ours ended: from init's record, or, before init has reaped it, by
// peeking at the zombie without reaping it.
std::optional<init::Exit> exit_of_child(pid_t pid, int pidfd) {
  if (auto e = init::exit_of(pid)) return e;
  siginfo_t info{};
  if (::waitid(P_PIDFD, static_cast<id_t>(pidfd), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
      info.si_pid != 0) {
    return init::Exit{info.si_code, info.si_status};
  }
  return init::exit_of(pid);  // reaped between the two looks
}

}  // namespace

void Bystanders::settle(Clock::time_point deadline) const {
  for (const Entry& e : entries_) {
    reaper::Backoff backoff;
    while (Clock::now() < deadline && !reaper::pidfd_exited(e.pidfd.get())) {
      const unsigned long long pending = pending_signals(e.pid);
      if (pending == 0) break;
      if (pending & (1ULL << (SIGKILL - 1))) {
        reaper::pidfd_wait_exit(e.pidfd.get(), reaper::time_left(deadline));
      } else {
        backoff.wait(deadline, e.pidfd.get());  // a handler is about to run: no event says when
      }
    }
  }
}

namespace {

// What harm done with no signal leaves changed, read from /proc and the kernel; empty where the
// process is gone.
std::map<std::string, std::string> attributes_of(pid_t pid) {
  const std::string dir = "/proc/" + std::to_string(pid) + "/";
  errno = 0;
  const int nice = ::getpriority(PRIO_PROCESS, static_cast<id_t>(pid));
  return {{"cgroup", reaper::read_file(dir + "cgroup")},
          {"oom_score_adj", reaper::read_file(dir + "oom_score_adj")},
          {"tracer", reaper::status_field(pid, "TracerPid")},
          {"nice", errno == 0 ? std::to_string(nice) : ""},
          {"scheduling policy", std::to_string(::sched_getscheduler(pid))},
          {"limits", reaper::read_file(dir + "limits")}};
}

// "was → now", of a multi-line value (a cgroup's lines, the limits) only the lines that changed.
std::string change(const std::string& was, const std::string& now) {
  const auto lines = [](const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  };
  const std::vector<std::string> before = lines(was), after = lines(now);
  const auto only_in = [](const std::vector<std::string>& a, const std::vector<std::string>& b) {
    std::vector<std::string> out;
    std::copy_if(a.begin(), a.end(), std::back_inserter(out),
                 [&](const std::string& l) { return std::find(b.begin(), b.end(), l) == b.end(); });
    return out;
  };
  return fmt::format("{} → {}", fmt::join(only_in(before, after), "; "),
                     fmt::join(only_in(after, before), "; "));
}

}  // namespace

void Bystanders::note_attributes() {
  for (Entry& e : entries_) e.attributes = attributes_of(e.pid);
}

std::vector<BystanderHit> Bystanders::hits() const {
  std::map<pid_t, std::string> roles;
  for (const Entry& e : entries_) roles[e.pid] = e.role;
  std::vector<BystanderHit> out;

  std::ifstream log(log_);
  std::string line;
  while (std::getline(log, line)) {
    std::istringstream in(line);
    pid_t pid = 0, sender = 0;
    int sig = 0, code = 0;
    if (!(in >> pid >> sig >> sender >> code)) continue;
    out.push_back(
        {pid, roles.count(pid) ? roles[pid] : "bystander", reaper::signal_name(sig), sender, code});
  }
  // SIGKILL and SIGSTOP cannot be caught, so their sender is unknown (reported as 0).
  for (const Entry& e : entries_) {
    std::optional<init::Exit> exit;
    if (e.our_child && reaper::pidfd_exited(e.pidfd.get()))
      exit = exit_of_child(e.pid, e.pidfd.get());
    if (exit) {
      // A bystander never exits by itself: an exit, too, is something done to it (a tracer
      // making it call exit, say), though no signal did it.
      out.push_back({e.pid, e.role,
                     exit->code == CLD_KILLED || exit->code == CLD_DUMPED
                         ? reaper::signal_name(exit->status)
                         : fmt::format("exit({})", exit->status),
                     0});
    } else if (!e.our_child && reaper::pidfd_exited(e.pidfd.get())) {
      out.push_back({e.pid, e.role, "unknown", 0});  // it died; how, only the ledger can say
    } else if (auto p = reaper::ProcTable::read_one(e.pid, reaper::Detail::stat);
               p && (p->state == 'T' || p->state == 't')) {
      out.push_back({e.pid, e.role, reaper::signal_name(SIGSTOP), 0});
    } else if (p && (reaper::cgroup_frozen(e.pid) || reaper::cgroup_freeze_asked(e.pid))) {
      // Stopped without a signal, and shown as sleeping: only its cgroup tells; asked to freeze
      // is enough (a bystander not scheduled since the request is not frozen yet).
      out.push_back({e.pid, e.role, "frozen", 0});
    } else if (p && !e.attributes.empty()) {
      for (const auto& [name, now] : attributes_of(e.pid)) {
        const std::string& was = e.attributes.at(name);
        if (now == was || now.empty()) continue;
        out.push_back({e.pid, e.role, fmt::format("{} changed: {}", name, change(was, now)), 0});
      }
    }
  }
  return out;
}

}  // namespace reapcheck
