#include "harness/sandbox/kernel_signal_trace.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include "harness/sandbox/owned_dir.h"
#include "reaper/os/pidfd.h"
#include "reaper/os/proc_table.h"
#include "reaper/os/sys_error.h"

namespace reapcheck {
namespace {

using reaper::UniqueFd;

constexpr std::string_view kInstancePrefix = "reapcheck-";
constexpr std::string_view kKeptPrefix = "reapcheck-kept-";
// The initial PID namespace's inode number (PROC_PID_INIT_INO): the only one whose pids the
// tracepoint reports.
constexpr ino_t kInitPidNamespace = 0xEFFFFFFCU;
// Room for a wide tree's burst of cgroup.kill events while the case reads them.
constexpr int kFeedPipeBytes = 1 << 20;

void write_at(int dir, const char* path, std::string_view text, int flags = O_WRONLY) {
  const UniqueFd fd(::openat(dir, path, flags | O_CLOEXEC));
  if (!fd || ::write(fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    reaper::throw_sys(fmt::format("write '{}' to tracefs {}", text, path));
  }
}

// tracefs, where the host has it mounted; else mounted in a mount namespace of a thread's own,
// so the host's mount table is left as it was. The directory fd keeps the mount usable after
// that thread's namespace is gone.
UniqueFd open_tracefs() {
  UniqueFd root(::open("/sys/kernel/tracing", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (root && ::faccessat(root.get(), "instances", F_OK, 0) == 0) return root;
  int err = 0;
  std::thread([&] {
    if (::unshare(CLONE_FS | CLONE_NEWNS) != 0 ||
        ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        ::mount("nodev", "/sys/kernel/tracing", "tracefs", 0, nullptr) != 0) {
      err = errno;
      return;
    }
    root = UniqueFd(::open("/sys/kernel/tracing", O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!root) err = errno;
  }).join();
  if (err != 0) reaper::throw_sys("mount tracefs", err);
  return root;
}

// A setting of the instance: the file, what is written to it, and what reading it back starts
// with once it holds.
struct Setting {
  const char* file;
  std::string value;
  std::string reads;
};

// SIGCHLD is every exit's; system calls' signals (SI_TKILL, SI_QUEUE) are the ledger's. Kept:
// SI_USER and SI_KERNEL, and the positive codes, which an fd owner's SIGIO carries (POLL_IN...)
// as well as faults: each is judged by its stack (kernel_origin).
constexpr std::string_view kWanted = "sig != 17 && code >= 0";

// In the order they are written: the filter before the trigger that repeats it, the events
// enabled last.
std::vector<Setting> settings() {
  const std::string trigger = fmt::format("stacktrace if {}", kWanted);
  return {
      // CLOCK_MONOTONIC: the case's steady_clock (reads back as the list, "[mono]" chosen).
      {"trace_clock", "mono", ""},
      {"buffer_percent", "0", "0\n"},  // poll() wakes at the first event, not half a buffer
      // What a followed thread forks, at any depth, is followed: every sandbox it clones.
      {"options/event-fork", "1", "1\n"},
      {"events/signal/signal_generate/filter", std::string(kWanted), std::string(kWanted)},
      // The stack is the signal's alone (a trigger, recorded right after the event it
      // matched), not every forked process's as options/stacktrace would give.
      {"events/signal/signal_generate/trigger", trigger,
       "stacktrace:unlimited if " + std::string(kWanted)},
      {"events/signal/signal_generate/enable", "1", "1"},
      // Each new process's pid is translated when it is born: a target may be reaped a moment
      // after its signal, before the event is read.
      {"events/sched/sched_process_fork/enable", "1", "1"},
  };
}

std::string read_at(int dir, const char* path) {
  const UniqueFd fd(::openat(dir, path, O_RDONLY | O_CLOEXEC));
  std::string text;
  char buf[4096];
  for (ssize_t n = 0; fd && (n = ::read(fd.get(), buf, sizeof buf)) > 0;) {
    text.append(buf, static_cast<size_t>(n));
  }
  return text;
}

// Whether a kept instance still holds every setting (its last user may have died while
// writing them).
bool configured(int dir) {
  for (const Setting& s : settings()) {
    const std::string now = read_at(dir, s.file);
    const std::string reads = s.reads.empty() ? "[" + s.value + "]" : s.reads;
    if (s.reads.empty() ? now.find(reads) == std::string::npos : now.rfind(reads, 0) != 0) {
      return false;
    }
  }
  return true;
}

// Where the slots of kept instances are locked: slot N is instance reapcheck-kept-N, used by the
// process holding an flock on this folder's file N.
constexpr const char* kKeptSlots = "/run/reapcheck/trace-slots";
constexpr int kMaxKept = 64;

std::string kept_slot_file(int slot) {
  return fmt::format("{}/{}", kKeptSlots, slot);
}

// Slot N's lock, when no other process holds it.
UniqueFd lock_kept_slot(int slot) {
  ::mkdir("/run/reapcheck", 0700);
  ::mkdir(kKeptSlots, 0700);
  const std::string path = kept_slot_file(slot);
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (fd && ::flock(fd.get(), LOCK_EX | LOCK_NB) == 0) return fd;
  return {};
}

// The first free slot and its lock; nullopt when none can be locked.
std::optional<std::pair<int, UniqueFd>> take_kept_slot() {
  for (int slot = 0; slot < kMaxKept; ++slot) {
    if (UniqueFd lock = lock_kept_slot(slot)) return std::pair{slot, std::move(lock)};
  }
  return std::nullopt;
}

// The name of `owner`'s own instance: reapcheck-<run>, or, for a case worker the run forked,
// reapcheck-<run>-<worker>, so that it is found as the run's once both are gone.
std::string instance_name(pid_t owner) {
  const pid_t run = run_pid();
  return owner == run ? fmt::format("{}{}", kInstancePrefix, run)
                      : fmt::format("{}{}-{}", kInstancePrefix, run, owner);
}

}  // namespace

// This process's tracing instance, with signal:signal_generate and its stacks on, tracing what
// the threads that clone sandboxes fork. Removed when the process ends its use (close_instance),
// or by the next run when the process died first. Kept (--keep-trace), it is a kept one
// instead, left in place for the next process to take.
struct TraceInstance {
  pid_t owner = 0;
  std::string name;
  UniqueFd tracefs;
  UniqueFd dir;
  UniqueFd pipe;             // trace_pipe, non-blocking
  UniqueFd marker;           // trace_marker
  UniqueFd kept;             // a kept instance's slot lock, held while in use
  std::set<pid_t> followed;  // the threads in set_event_pid: a sandbox cloned by one is traced

  // Traces what the calling thread forks from now on. One write per thread for the process's
  // life: each write of set_event_pid waits for an RCU grace period (10-30 ms). The first one
  // replaces what a kept instance's last user left there: its threads' ids, dead now, which an
  // unrelated process may take.
  void follow_this_thread() {
    if (!followed.insert(::gettid()).second) return;
    const bool first = followed.size() == 1;
    const bool stale = first && !read_at(dir.get(), "set_event_pid").empty();
    write_at(dir.get(), "set_event_pid", std::to_string(::gettid()),
             O_WRONLY | (stale ? O_TRUNC : O_APPEND));
  }

  static TraceInstance open(bool keep) {
    TraceInstance in;
    in.owner = ::getpid();
    in.name = instance_name(in.owner);
    if (keep) {
      if (auto slot = take_kept_slot()) {
        in.name = fmt::format("{}{}", kKeptPrefix, slot->first);
        in.kept = std::move(slot->second);
      }
    }
    in.tracefs = open_tracefs();
    const std::string path = "instances/" + in.name;
    in.dir = UniqueFd(::openat(in.tracefs.get(), path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (in.dir && in.kept && configured(in.dir.get())) {
      write_at(in.dir.get(), "tracing_on", "1");  // its last user turned it off
    } else {
      // A dead run's (by a reused pid), or a kept one its last user left half set up.
      in.dir.reset();
      ::unlinkat(in.tracefs.get(), path.c_str(), AT_REMOVEDIR);
      if (::mkdirat(in.tracefs.get(), path.c_str(), 0700) != 0) {
        reaper::throw_sys("create the tracing instance " + path);
      }
      in.dir = UniqueFd(::openat(in.tracefs.get(), path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
      if (!in.dir) reaper::throw_sys("open the tracing instance " + path);
      for (const Setting& s : settings()) write_at(in.dir.get(), s.file, s.value);
    }
    in.pipe = UniqueFd(::openat(in.dir.get(), "trace_pipe", O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    in.marker = UniqueFd(::openat(in.dir.get(), "trace_marker", O_WRONLY | O_CLOEXEC));
    if (!in.pipe || !in.marker) reaper::throw_sys("open trace_pipe and trace_marker of " + path);
    return in;
  }

  void close() {
    if (owner != ::getpid()) return;  // a forked worker's copy: the parent's to remove
    pipe.reset();
    marker.reset();
    if (kept) {
      // Left for the next process; it records nothing until taken. What it holds now is
      // drained by the next case's begin().
      try {
        write_at(dir.get(), "tracing_on", "0");
      } catch (const std::exception&) {
        // The next user turns it on again either way.
      }
      dir.reset();
      kept.reset();
      return;
    }
    dir.reset();
    const std::string path = "instances/" + name;
    ::unlinkat(tracefs.get(), path.c_str(), AT_REMOVEDIR);
  }
};

namespace {

// The process's instance, or why there is none; made on first use.
struct InstanceSlot {
  std::optional<TraceInstance> instance;
  std::string why_not;
  pid_t tried_by = 0;
  ~InstanceSlot() {
    if (instance) instance->close();
  }
};

InstanceSlot& slot() {
  static InstanceSlot s;
  return s;
}

std::string why_untraceable() {
  if (::geteuid() != 0) return "not root";
  struct stat ns {};
  if (::stat("/proc/self/ns/pid", &ns) != 0 || ns.st_ino != kInitPidNamespace) {
    return "the harness is not in the initial PID namespace, whose pids the tracepoint gives";
  }
  return "";
}

// tracefs's instances/, open for reading; none where the harness cannot trace (then no instance
// of ours can be there either).
UniqueFd instances_dir() {
  if (!why_untraceable().empty()) return {};
  try {
    return UniqueFd(
        ::openat(open_tracefs().get(), "instances", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  } catch (const std::exception&) {
    return {};  // no tracefs
  }
}

// A tracing instance of ours, by its name: a run's own, reapcheck-<run>, a case worker's,
// reapcheck-<run>-<worker>, or one kept for reuse, reapcheck-kept-<slot>.
struct OurInstance {
  std::string name;
  pid_t run = 0;    // a run's own or its worker's: the run's pid
  pid_t owner = 0;  // the process that uses it: the run or its worker
  int slot = -1;    // a kept one
};

// The run that made a tracing instance still runs: a zombie (a killed worker its new parent has
// not reaped yet) uses its instance no more than a process that is gone.
bool runs(pid_t owner) {
  if (!reaper::pidfd_open(owner)) return false;
  const auto info = reaper::ProcTable::read_one(owner, reaper::Detail::stat);
  return info && info->state != 'Z' && info->state != 'X';
}

// Our instances in `instances` (instances_dir()); none when it is not open.
std::vector<OurInstance> our_instances(int instances) {
  std::vector<OurInstance> out;
  DIR* dir = instances < 0 ? nullptr : ::fdopendir(::dup(instances));
  if (dir == nullptr) return out;
  while (const dirent* e = ::readdir(dir)) {
    const std::string_view name = e->d_name;
    if (name.rfind(kKeptPrefix, 0) == 0) {
      const int slot = static_cast<int>(std::strtol(e->d_name + kKeptPrefix.size(), nullptr, 10));
      out.push_back({e->d_name, 0, 0, slot});
    } else if (name.rfind(kInstancePrefix, 0) == 0) {
      char* end = nullptr;
      const auto run =
          static_cast<pid_t>(std::strtol(e->d_name + kInstancePrefix.size(), &end, 10));
      const auto worker = *end == '-' ? static_cast<pid_t>(std::strtol(end + 1, nullptr, 10)) : 0;
      if (run > 0) out.push_back({e->d_name, run, worker > 0 ? worker : run, -1});
    }
  }
  ::closedir(dir);
  return out;
}

// `keep`: take a kept instance rather than make one, when this process makes its first.
TraceInstance* instance(std::string& why_not, bool keep) {
  InstanceSlot& s = slot();
  if (s.tried_by != ::getpid()) {  // first use in this process (a forked worker starts afresh)
    s.tried_by = ::getpid();
    s.instance.reset();  // a parent's: its fds are closed here, its instance left to it
    s.why_not = why_untraceable();
    if (s.why_not.empty()) {
      try {
        s.instance = TraceInstance::open(keep);
      } catch (const std::exception& e) {
        s.why_not = e.what();
      }
    }
  }
  why_not = s.why_not;
  return s.instance ? &*s.instance : nullptr;
}

// What the sandbox's body sees of the current case's feed.
constexpr std::string_view kUnsandboxed = "only a case in the sandbox records them";

std::variant<KernelSignalFeed, std::string>& published() {
  static std::variant<KernelSignalFeed, std::string> feed = std::string(kUnsandboxed);
  return feed;
}

// Events the instance's ring buffers lost so far (overwritten or dropped), over every CPU.
uint64_t lost_events(int instance_dir) {
  uint64_t lost = 0;
  DIR* cpus = ::fdopendir(::openat(instance_dir, "per_cpu", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (cpus == nullptr) return 0;
  while (const dirent* e = ::readdir(cpus)) {
    if (std::string_view(e->d_name).rfind("cpu", 0) != 0) continue;
    const UniqueFd fd(
        ::openat(instance_dir, fmt::format("per_cpu/{}/stats", e->d_name).c_str(), O_RDONLY));
    char buf[1024] = {};
    if (!fd || ::read(fd.get(), buf, sizeof buf - 1) <= 0) continue;
    std::istringstream stats(buf);
    for (std::string line; std::getline(stats, line);) {
      if (line.rfind("overrun: ", 0) == 0 || line.rfind("dropped events: ", 0) == 0) {
        lost += std::strtoull(line.c_str() + line.find(':') + 1, nullptr, 10);
      }
    }
  }
  ::closedir(cpus);
  return lost;
}

// A process's pids from the initial PID namespace down to its own (NSpid); empty when gone.
std::vector<pid_t> nspids(pid_t host_pid) {
  std::istringstream ids(reaper::status_field(host_pid, "NSpid"));
  std::vector<pid_t> out;
  for (pid_t id = 0; ids >> id;) out.push_back(id);
  return out;
}

pid_t nth_nspid(pid_t host_pid, int level) {
  const std::vector<pid_t> ids = nspids(host_pid);
  return level < static_cast<int>(ids.size()) ? ids[static_cast<size_t>(level)] : 0;
}

}  // namespace

std::string kernel_signal_line(const GeneratedSignal& s) {
  // Names last: a comm may hold spaces; the tab between them cannot be in either (comms are
  // 15 bytes of a task's name, which the kernel prints as is, so a tab is replaced).
  auto clean = [](std::string name) {
    for (char& c : name) {
      if (c == '\t' || c == '\n') c = ' ';
    }
    return name;
  };
  return fmt::format("K {} {} {} {} {} {}\t{}\t{}\n", s.mono_ns, s.sender, s.target, s.sig,
                     s.result, clean(s.origin), clean(s.sender_comm), clean(s.target_comm));
}

std::optional<GeneratedSignal> parse_kernel_signal_line(const std::string& line,
                                                        std::string* marker) {
  if (line.rfind("M ", 0) == 0) {
    if (marker != nullptr) *marker = line.substr(2);
    return std::nullopt;
  }
  GeneratedSignal s;
  std::istringstream in(line);
  std::string tag;
  if (!(in >> tag >> s.mono_ns >> s.sender >> s.target >> s.sig >> s.result) || tag != "K") {
    if (marker != nullptr) marker->clear();
    return std::nullopt;
  }
  in.get();  // the space before the origin
  std::getline(in, s.origin, '\t');
  std::getline(in, s.sender_comm, '\t');
  std::getline(in, s.target_comm);
  return s;
}

std::variant<KernelSignalFeed, std::string> kernel_signal_feed() {
  return published();
}

std::variant<KernelSignalTrace, std::string> KernelSignalTrace::start(bool wanted, bool keep) {
  if (!wanted) {
    published() = std::string("the run records no signals");
    return std::get<std::string>(published());
  }
  std::string why_not;
  TraceInstance* in = instance(why_not, keep);
  if (in == nullptr) {
    published() = why_not;
    return why_not;
  }
  try {
    in->follow_this_thread();
  } catch (const std::exception& e) {
    published() = std::string(e.what());
    return std::get<std::string>(published());
  }
  reaper::Pipe feed = reaper::make_pipe();
  ::fcntl(feed.write.get(), F_SETPIPE_SZ, kFeedPipeBytes);
  ::fcntl(feed.write.get(), F_SETFL, O_NONBLOCK);
  published() = KernelSignalFeed{feed.read.get(), in->marker.get()};
  return KernelSignalTrace(*in, std::move(feed));
}

KernelSignalTrace::KernelSignalTrace(TraceInstance& in, reaper::Pipe feed)
    : in_(&in), feed_(std::move(feed)) {}

void KernelSignalTrace::begin() {
  // What the last case's processes made the kernel send after its barrier is no one's now: they
  // are all dead (the last sandbox's PID 1 was reaped), and nothing of theirs comes after this.
  char drain[65536];
  while (::read(in_->pipe.get(), drain, sizeof drain) > 0) {
  }
  lost_before_ = lost_events(in_->dir.get());
  lineage_.clear();
}

KernelSignalTrace::KernelSignalTrace(KernelSignalTrace&& other) noexcept
    : in_(other.in_),
      feed_(std::move(other.feed_)),
      level_(other.level_),
      reader_(std::move(other.reader_)),
      born_(std::move(other.born_)),
      lineage_(std::move(other.lineage_)),
      lost_before_(other.lost_before_) {}

KernelSignalTrace::~KernelSignalTrace() {
  if (!feed_.write) return;  // moved from
  try {
    published() = std::string(kUnsandboxed);
  } catch (const std::exception&) {
    // The next case's start() publishes its own feed; nothing outside a case reads this one.
  }
}

void KernelSignalTrace::follow(pid_t pid_one) {
  // PID 1's own NSpid line ends with the sandbox's 1: its position is the sandbox's level.
  if (const size_t depth = nspids(pid_one).size(); depth > 1) level_ = static_cast<int>(depth) - 1;
  lineage_.set_level(level_);
}

int KernelSignalTrace::pollable() const {
  return in_->pipe.get();
}

pid_t KernelSignalTrace::in_sandbox(pid_t host_pid) {
  if (auto it = born_.find(host_pid); it != born_.end()) return it->second;
  return nth_nspid(host_pid, level_);
}

void KernelSignalTrace::pump() {
  TraceInstance* in = in_;
  std::string out;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(in->pipe.get(), buf, sizeof buf);
    if (n <= 0) break;
    auto got = reader_.feed(std::string_view(buf, static_cast<size_t>(n)));
    for (const Fork& fork : got.forked) {
      if (const pid_t ours = nth_nspid(fork.child, level_); ours != 0) born_[fork.child] = ours;
      if (const auto birth = lineage_.born(fork)) out += birth_line(*birth);
    }
    for (GeneratedSignal& s : got.signals) {
      if (s.sender == s.target) continue;  // to itself: a fault's, a pipe's, its own exit's
      s.sender = in_sandbox(s.sender);
      s.target = in_sandbox(s.target);
      out += kernel_signal_line(s);
    }
    // Before each barrier, what the ring buffers lost since the case began, if anything.
    for (const std::string& m : got.markers) {
      if (const uint64_t lost = lost_events(in->dir.get()) - lost_before_; lost > 0) {
        out += fmt::format("M lost {}\n", lost);
      }
      out += "M " + m + "\n";
    }
  }
  // The pipe holds a megabyte; a case that stopped reading has its barrier time out instead.
  if (!out.empty()) (void)!::write(feed_.write.get(), out.data(), out.size());
}

void KernelSignalTrace::close_instance() {
  InstanceSlot& s = slot();
  if (s.instance) s.instance->close();
  s.instance.reset();
  s.tried_by = 0;
}

int KernelSignalTrace::reclaim_abandoned(bool kept_too) {
  const UniqueFd root = instances_dir();
  int removed = 0;
  for (const OurInstance& in : our_instances(root.get())) {
    // Kept for reuse: removed only when asked (clean), once no process uses it.
    const UniqueFd lock = in.slot >= 0 && kept_too ? lock_kept_slot(in.slot) : UniqueFd();
    const bool abandoned = in.slot >= 0 ? static_cast<bool>(lock) : !runs(in.owner);
    if (abandoned) removed += ::unlinkat(root.get(), in.name.c_str(), AT_REMOVEDIR) == 0 ? 1 : 0;
  }
  return removed;
}

std::vector<HostItem> KernelSignalTrace::list() {
  const UniqueFd root = instances_dir();
  std::vector<HostItem> out;
  for (const OurInstance& in : our_instances(root.get())) {
    HostItem item{"tracefs:instances/" + in.name, in.run, HostItem::State::dead};
    if (in.slot >= 0) {
      const std::optional<pid_t> holder = flock_holder(kept_slot_file(in.slot));
      item.run = holder.value_or(0);
      item.state = holder ? HostItem::State::alive : HostItem::State::free;
    } else if (runs(in.owner)) {
      item.state = HostItem::State::alive;
    }
    out.push_back(std::move(item));
  }
  return out;
}

}  // namespace reapcheck
