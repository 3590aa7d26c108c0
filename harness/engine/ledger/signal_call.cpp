#include "harness/engine/ledger/signal_call.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>
#include <string>

#include "harness/engine/census/pid_namespace.h"
#include "harness/model/text.h"
#include "reaper/os/pidfd.h"
#include "reaper/os/proc_table.h"
#include "reaper/os/read_file.h"
#include "reaper/reaper.h"

namespace reapcheck {
namespace {

// pidfd_send_signal's flags (Linux 6.9): where the signal goes besides the process itself.
constexpr unsigned kPidfdSignalThread = 1;
constexpr unsigned kPidfdSignalProcessGroup = 4;

// kill(-1) reaches every process its sender may signal in the sender's own PID namespace (and
// those nested in it), but the sender and that namespace's init: a sender in a namespace of its
// own reaches nothing of the case outside it.
void keep_senders_namespace(pid_t sender, std::vector<Party>& reached) {
  const std::vector<NamespaceLevel> levels = enclosing_namespaces(sender);
  if (levels.empty()) return;  // the case's own namespace: everyone_but() is right
  const NamespaceLevel& theirs = levels.front();
  std::erase_if(reached, [&](const Party& p) {
    if (p.pid == theirs.init) return true;
    const std::vector<NamespaceLevel> around = enclosing_namespaces(p.pid);
    return std::none_of(around.begin(), around.end(),
                        [&](const NamespaceLevel& l) { return l.inode == theirs.inode; });
  });
}

// Everything `reached` holds is a zombie whose id cannot be freed during the call: the sender's
// own exited child, or the child of a stopped or traced parent, which reaps nothing until a
// signal makes it run again. A second SIGKILL to such a member is no pid-reuse race.
bool pinned_by(pid_t sender, const std::vector<Party>& reached) {
  return !reached.empty() && std::all_of(reached.begin(), reached.end(), [&](const Party& p) {
    if (p.alive) return false;
    const auto self = reaper::ProcTable::read_one(p.pid, reaper::Detail::stat);
    if (!self || self->ppid == sender) return self.has_value();
    const auto parent = reaper::ProcTable::read_one(self->ppid, reaper::Detail::stat);
    return parent && (parent->state == 'T' || parent->state == 't');
  });
}

// The process a thread id belongs to.
pid_t thread_group_of(pid_t tid) {
  const std::string tgid = reaper::status_field(tid, "Tgid");
  return tgid.empty() ? 0 : static_cast<pid_t>(std::strtol(tgid.c_str(), nullptr, 10));
}

// The process kill() reaches through `id`: a thread's id names its whole thread group; an id
// with no thread there (a zombie's, nothing's) names what the census registered under it.
pid_t process_of(pid_t id) {
  const pid_t group = thread_group_of(id);
  return group > 0 ? group : id;
}

// What a pidfd_send_signal() named: "pidfd of pid 7", "/proc directory of a reaped process".
std::string signal_fd_text(const std::optional<reaper::SignalFd>& fd) {
  const char* what = fd && fd->proc_dir ? "/proc directory" : "pidfd";
  return fd && fd->pid > 0 ? fmt::format("{} of pid {}", what, fd->pid)
                           : fmt::format("{} of a reaped process", what);
}

// What a call reads from its sender and census.
struct Call {
  const seccomp_notif& notif;
  const Census& census;
  pid_t sender() const { return static_cast<pid_t>(notif.pid); }
  uint64_t arg(int i) const { return notif.data.args[i]; }
  pid_t id(int i) const { return static_cast<pid_t>(static_cast<int>(arg(i))); }
  int signal(int i) const { return static_cast<int>(arg(i)); }
  // What `pid` holds, as one party, or nothing.
  void reach(SignalRecord& r, pid_t pid) const {
    if (auto party = census.who(pid)) r.reached.push_back(std::move(*party));
  }
};

// kill() and rt_sigqueueinfo(): a pid, the sender's group, every process, or a group.
int resolve_kill(const Call& c, SignalRecord& r) {
  r.call = c.notif.data.nr == SYS_kill ? "kill" : "rt_sigqueueinfo";
  const pid_t target = c.id(0);
  if (target > 0) {
    r.target = fmt::format("pid {}", target);
    c.reach(r, process_of(in_our_namespace(c.sender(), target, "NSpid")));
  } else if (target == 0) {
    r.target = "its own group";
    if (auto self = reaper::ProcTable::read_one(c.sender(), reaper::Detail::stat)) {
      r.reached = c.census.with_id(self->pgid);
    }
  } else if (target == -1) {
    r.target = "every process";
    r.reached = c.census.everyone_but(c.sender());
    keep_senders_namespace(c.sender(), r.reached);
  } else {
    r.target = fmt::format("group {}", -target);
    r.reached = c.census.with_id(in_our_namespace(c.sender(), -target, "NSpgid"));
  }
  return c.signal(1);
}

// tkill(), tgkill() and rt_tgsigqueueinfo(): one thread, of the process it belongs to.
int resolve_thread_kill(const Call& c, SignalRecord& r) {
  if (c.notif.data.nr == SYS_tkill) {
    r.call = "tkill";
    r.target = fmt::format("thread {}", c.id(0));
    c.reach(r, thread_group_of(in_our_namespace(c.sender(), c.id(0), "NSpid")));
    return c.signal(1);
  }
  r.call = c.notif.data.nr == SYS_tgkill ? "tgkill" : "rt_tgsigqueueinfo";
  r.target = fmt::format("thread {} of pid {}", c.id(1), c.id(0));
  c.reach(r, in_our_namespace(c.sender(), c.id(0), "NSpid"));
  return c.signal(2);
}

// pidfd_send_signal(): the process a pidfd (or a /proc directory) holds, its thread or group.
int resolve_pidfd_kill(const Call& c, SignalRecord& r) {
  r.call = "pidfd_send_signal";
  r.by_pidfd = true;
  const auto flags = static_cast<unsigned>(c.arg(3));
  const auto fd = reaper::signal_fd_target(c.sender(), static_cast<int>(c.arg(0)));
  const pid_t pid = fd ? fd->pid : 0;
  r.target = signal_fd_text(fd);
  if ((flags & kPidfdSignalProcessGroup) != 0) {
    r.target += ", its whole group";
    if (auto p = reaper::ProcTable::read_one(pid, reaper::Detail::stat)) {
      r.reached = c.census.with_id(p->pgid);
    }
  } else {
    if ((flags & kPidfdSignalThread) != 0) r.target += ", one thread";
    c.reach(r, pid);
  }
  return c.signal(1);
}

// What a ptrace() request does, by name; a request that resumes its tracee may inject a signal.
std::string ptrace_request(uint64_t request, uint64_t data) {
  static const std::map<uint64_t, const char*> kNames = {
      {1, "PTRACE_PEEKTEXT"},   {2, "PTRACE_PEEKDATA"},       {4, "PTRACE_POKETEXT"},
      {5, "PTRACE_POKEDATA"},   {7, "PTRACE_CONT"},           {8, "PTRACE_KILL"},
      {9, "PTRACE_SINGLESTEP"}, {13, "PTRACE_SETREGS"},       {16, "PTRACE_ATTACH"},
      {17, "PTRACE_DETACH"},    {24, "PTRACE_SYSCALL"},       {0x4200, "PTRACE_SETOPTIONS"},
      {0x4206, "PTRACE_SEIZE"}, {0x4207, "PTRACE_INTERRUPT"}, {0x4208, "PTRACE_LISTEN"}};
  const auto it = kNames.find(request);
  std::string name = it != kNames.end() ? it->second : fmt::format("ptrace request {:#x}", request);
  const bool resumes = request == 7 || request == 9 || request == 17 || request == 24;
  if (resumes && data > 0 && data <= static_cast<uint64_t>(SIGRTMAX)) {
    name += " with " + reaper::signal_name(static_cast<int>(data));  // injected as it resumes
  }
  return name;
}

// setpriority() and ioprio_set() name a process, a group or a user's processes; 0 is the
// caller's own.
void reach_who(const Call& c, SignalRecord& r, int process, int group) {
  const auto which = static_cast<int>(c.arg(0));
  const pid_t who = c.id(1);
  if (which == process) {
    r.target = who == 0 ? "itself" : fmt::format("pid {}", who);
    c.reach(r, who == 0 ? c.sender() : in_our_namespace(c.sender(), who, "NSpid"));
  } else if (which == group) {
    r.target = who == 0 ? "its own group" : fmt::format("group {}", who);
    const auto self = reaper::ProcTable::read_one(c.sender(), reaper::Detail::stat);
    r.reached = c.census.with_id(who != 0 ? in_our_namespace(c.sender(), who, "NSpgid")
                                          : (self ? self->pgid : 0));
  } else {
    r.target = "every process of a user";
    r.reached = c.census.everyone_but(c.sender());
    keep_senders_namespace(c.sender(), r.reached);
  }
}

// A call that acts on another process without a signal: ptrace, a write to its memory, a file
// taken from it, its limits, priority or scheduling changed. False for a signal call.
bool resolve_act(const Call& c, SignalRecord& r) {
  const long nr = c.notif.data.nr;
  const auto by_pid = [&](pid_t pid) {
    r.target = fmt::format("pid {}", pid);
    c.reach(r, in_our_namespace(c.sender(), pid, "NSpid"));
  };
  const auto by_fd = [&] {
    r.by_pidfd = true;
    const auto fd = reaper::signal_fd_target(c.sender(), static_cast<int>(c.arg(0)));
    r.target = signal_fd_text(fd);
    c.reach(r, fd ? fd->pid : 0);
  };
  if (nr == SYS_ptrace) {
    r.signal = ptrace_request(c.arg(0), c.arg(3));
    by_pid(c.id(1));
  } else if (nr == SYS_process_vm_writev || nr == SYS_prlimit64) {
    r.signal = nr == SYS_prlimit64 ? fmt::format("resource {}", c.arg(1)) : "memory written";
    by_pid(c.id(0));
  } else if (nr == SYS_sched_setattr || nr == SYS_sched_setscheduler || nr == SYS_sched_setparam ||
             nr == SYS_sched_setaffinity) {
    r.signal = "scheduling";
    by_pid(c.id(0));
  } else if (nr == SYS_pidfd_getfd || nr == SYS_process_madvise) {
    r.signal = nr == SYS_pidfd_getfd ? fmt::format("its fd {}", c.arg(1)) : "its memory advised";
    by_fd();
  } else if (nr == SYS_setpriority || nr == SYS_ioprio_set) {
    r.signal = nr == SYS_setpriority ? "priority" : "I/O priority";
    nr == SYS_setpriority ? reach_who(c, r, 0, 1) : reach_who(c, r, 1, 2);
  } else {
    return false;
  }
  static const std::map<long, const char*> kCalls = {{SYS_ptrace, "ptrace"},
                                                     {SYS_process_vm_writev, "process_vm_writev"},
                                                     {SYS_prlimit64, "prlimit64"},
                                                     {SYS_sched_setattr, "sched_setattr"},
                                                     {SYS_sched_setscheduler, "sched_setscheduler"},
                                                     {SYS_sched_setparam, "sched_setparam"},
                                                     {SYS_sched_setaffinity, "sched_setaffinity"},
                                                     {SYS_pidfd_getfd, "pidfd_getfd"},
                                                     {SYS_process_madvise, "process_madvise"},
                                                     {SYS_setpriority, "setpriority"},
                                                     {SYS_ioprio_set, "ioprio_set"}};
  r.call = kCalls.at(nr);
  r.result = r.reached.empty() ? "no such process" : "done";
  return true;
}

int resolve_target(const Call& c, SignalRecord& r) {
  switch (c.notif.data.nr) {
    case SYS_kill:
    case SYS_rt_sigqueueinfo:
      return resolve_kill(c, r);
    case SYS_tkill:
    case SYS_tgkill:
    case SYS_rt_tgsigqueueinfo:
      return resolve_thread_kill(c, r);
    case SYS_pidfd_send_signal:
      return resolve_pidfd_kill(c, r);
    default:
      r.call = fmt::format("syscall {}", c.notif.data.nr);
      return 0;
  }
}

}  // namespace

bool is_signal_call(long nr) {
  return nr == SYS_kill || nr == SYS_tkill || nr == SYS_tgkill || nr == SYS_rt_sigqueueinfo ||
         nr == SYS_rt_tgsigqueueinfo || nr == SYS_pidfd_send_signal;
}

std::optional<pid_t> named_process(const seccomp_notif& call) {
  const long nr = call.data.nr;
  const auto id = static_cast<pid_t>(static_cast<int>(call.data.args[0]));
  if (id <= 0 || !is_signal_call(nr) || nr == SYS_pidfd_send_signal) return std::nullopt;
  // A sender in a namespace of its own writes ids that only a scan of /proc translates: too much
  // for a look made at every call, and such a call takes the settled path anyway.
  const ino_t theirs = pid_namespace_of(static_cast<pid_t>(call.pid));
  if (theirs != 0 && theirs != own_pid_namespace()) return std::nullopt;
  const pid_t pid = nr == SYS_tkill ? thread_group_of(id) : process_of(id);
  return pid > 0 ? std::optional(pid) : std::nullopt;
}

Party signal_sender(pid_t pid, const Census& census) {
  // The caller is a thread (a test harness's, a runtime's worker): the sender is its process,
  // which the fork events and the parent links know.
  const pid_t process = thread_group_of(pid);
  if (process > 0) pid = process;
  return census.who(pid).value_or(Party{Party::Kind::reaper, pid, "?"});
}

bool reapers_side(const Party& sender) {
  return sender.kind == Party::Kind::reaper || sender.kind == Party::Kind::harness;
}

SignalRecord resolve_signal_call(const seccomp_notif& call, const Party& who,
                                 const Census& census) {
  SignalRecord r;
  const pid_t sender = who.pid != 0 ? who.pid : static_cast<pid_t>(call.pid);
  r.sender = who;
  // The host runs the reaper: what it sends, the reaper sends (a signal *to* it is a hit).
  if (r.sender.kind == Party::Kind::harness) r.sender.kind = Party::Kind::reaper;
  if (const auto cmdline =
          reaper::read_file_at(AT_FDCWD, fmt::format("/proc/{}/cmdline", sender))) {
    r.sender_argv = printable(reaper::parse_cmdline(*cmdline));
  }
  const Call c{call, census};
  if (!resolve_act(c, r)) {
    const int sig = resolve_target(c, r);
    r.signal = sig == 0 ? "0" : reaper::signal_name(sig);
    r.result = sig < 0 || sig > SIGRTMAX ? "invalid signal"
               : r.reached.empty()       ? "no such process"
                                         : "sent";
  }
  r.pinned = pinned_by(sender, r.reached);
  return r;
}

// A signal the kernel sent in a process's context, resolved by the census when it reaches us,
// a moment after: a target already reaped is named by what the census registered there.
SignalRecord resolve_kernel_signal(const GeneratedSignal& s, const Census& census) {
  SignalRecord r;
  r.kernel = true;
  r.call = "kernel: " + s.origin;
  r.sender = s.sender != 0 ? census.who_or_was(s.sender).value_or(
                                 Party{Party::Kind::reaper, s.sender, s.sender_comm})
                           : Party{Party::Kind::reaper, 0, s.sender_comm + ", exited"};
  if (r.sender.kind == Party::Kind::harness) r.sender.kind = Party::Kind::reaper;
  if (auto p = reaper::ProcTable::read_one(s.sender, reaper::Detail::full);
      p && s.sender != 0 && !p->argv.empty()) {
    r.sender_argv = printable(p->argv);
  } else {
    r.sender_argv = {printable(s.sender_comm)};
  }
  r.target = s.target != 0 ? fmt::format("pid {}", s.target)
                           : fmt::format("{}, exited", printable(s.target_comm));
  if (auto party = census.who_or_was(s.target); party && s.target != 0) {
    r.reached.push_back(std::move(*party));
  }
  r.signal = reaper::signal_name(s.sig);
  // TRACE_SIGNAL_* of the kernel's signal tracepoints.
  static constexpr std::array<const char*, 5> kResults = {
      "sent", "ignored", "already pending", "queue overflow", "sent without its information"};
  r.result = s.result >= 0 && s.result < static_cast<int>(kResults.size())
                 ? kResults[static_cast<size_t>(s.result)]
                 : fmt::format("not sent ({})", s.result);
  if (r.reached.empty()) r.result += " (its target was gone before it could be looked up)";
  return r;
}

}  // namespace reapcheck
