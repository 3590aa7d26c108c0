#include "harness/sandbox/trace_events.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <utility>

namespace reapcheck {
namespace {

template <typename T>
std::optional<T> number(std::string_view text) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// The value of `key=` in `fields`, up to the next space.
std::string_view field(std::string_view fields, std::string_view key) {
  size_t at = 0;
  for (;;) {
    at = fields.find(key, at);
    if (at == std::string_view::npos) return {};
    if (at == 0 || fields[at - 1] == ' ') break;
    at += key.size();
  }
  std::string_view rest = fields.substr(at + key.size());
  return rest.substr(0, rest.find(' '));
}

// "comm-123   [001] d..1.   493.022790: what: ..." into the thread, its name, the time and
// what follows the time.
struct Header {
  pid_t tid = 0;
  std::string comm;
  int64_t mono_ns = 0;
  std::string_view body;
};

std::optional<Header> header(std::string_view line) {
  // The CPU column, "[001]", ends the task's "comm-tid"; a comm may itself hold '-' or ' '.
  size_t open = line.find(" [");
  while (open != std::string_view::npos) {
    const size_t close = line.find(']', open);
    if (close != std::string_view::npos && number<int>(line.substr(open + 2, close - open - 2))) {
      break;
    }
    open = line.find(" [", open + 1);
  }
  if (open == std::string_view::npos) return std::nullopt;
  const std::string_view task = trim(line.substr(0, open));
  const size_t dash = task.rfind('-');
  if (dash == std::string_view::npos) return std::nullopt;
  const auto tid = number<pid_t>(task.substr(dash + 1));
  // The time ends in ": ", after the flags.
  const size_t colon = line.find(": ", open);
  if (!tid || colon == std::string_view::npos) return std::nullopt;
  const std::string_view stamp =
      line.substr(line.rfind(' ', colon) + 1, colon - line.rfind(' ', colon) - 1);
  const size_t dot = stamp.find('.');
  const auto secs = number<int64_t>(stamp.substr(0, dot));
  const auto micros = dot == std::string_view::npos ? std::optional<int64_t>(0)
                                                    : number<int64_t>(stamp.substr(dot + 1));
  if (!secs || !micros) return std::nullopt;
  return Header{*tid, std::string(task.substr(0, dash)), *secs * 1'000'000'000 + *micros * 1'000,
                line.substr(colon + 2)};
}

}  // namespace

std::string kernel_origin(const std::vector<std::string>& frames) {
  // A system call's signal is the seccomp ledger's; these are the kernel's own — the last three
  // sent on behalf of a system call that is no signal call (a write to a pipe whose owner asked
  // for SIGIO, urgent data on a socket, a ptrace attach), which the ledger does not hold.
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 9> kOrigins{{
      {"cgroup_kill", "cgroup.kill"},
      {"zap_pid_ns_processes", "PID namespace teardown"},
      {"tty", "terminal"},
      {"oom_kill", "OOM killer"},
      {"exit_notify", "exit (parent-death signal or orphaned group)"},
      {"do_exit", "exit (parent-death signal or orphaned group)"},
      {"send_sigio", "an fd's owner signal (F_SETOWN, a lease break)"},
      {"send_sigurg", "a socket's urgent data (SIGURG to its owner)"},
      {"ptrace_attach", "ptrace attach"},
  }};
  for (const std::string& frame : frames) {
    if (frame.find("sys_") != std::string::npos) return "";  // a system call: kill(2) and kin
    for (const auto& [symbol, origin] : kOrigins) {
      if (frame.find(symbol) != std::string::npos) return std::string(origin);
    }
  }
  return "";
}

TraceEventReader::Output TraceEventReader::feed(std::string_view text) {
  Output out;
  partial_.append(text);
  size_t start = 0;
  for (size_t nl = partial_.find('\n'); nl != std::string::npos; nl = partial_.find('\n', start)) {
    line(std::string_view(partial_).substr(start, nl - start), out);
    start = nl + 1;
  }
  partial_.erase(0, start);
  return out;
}

void TraceEventReader::line(std::string_view text, Output& out) {
  if (text.rfind(" => ", 0) == 0) {
    if (stack_of_) {
      if (auto it = pending_.find(*stack_of_); it != pending_.end()) {
        it->second.frames.emplace_back(trim(text.substr(4)));
      }
    }
    return;
  }
  // Any other line ends the stack being read.
  if (stack_of_) finish(*std::exchange(stack_of_, std::nullopt), out);
  const auto h = header(text);
  if (!h) return;  // a comment, or a line lost to an overrun
  if (h->body == "<stack trace>") {
    stack_of_ = h->tid;
    return;
  }
  constexpr std::string_view kMarker = "tracing_mark_write: ";
  if (h->body.rfind(kMarker, 0) == 0) {
    out.markers.emplace_back(h->body.substr(kMarker.size()));
    return;
  }
  constexpr std::string_view kFork = "sched_process_fork: ";
  if (h->body.rfind(kFork, 0) == 0) {
    const std::string_view fields = h->body.substr(kFork.size());
    const size_t child = fields.rfind(" child_pid=");
    if (child != std::string_view::npos) {
      if (auto pid = number<pid_t>(fields.substr(child + 11))) out.forked.push_back({h->tid, *pid});
    }
    return;
  }
  constexpr std::string_view kEvent = "signal_generate: ";
  if (h->body.rfind(kEvent, 0) != 0) return;
  const std::string_view fields = h->body.substr(kEvent.size());
  GeneratedSignal s;
  s.mono_ns = h->mono_ns;
  s.sender = h->tid;
  s.sender_comm = h->comm;
  const auto sig = number<int>(field(fields, "sig="));
  const auto res = number<int>(field(fields, "res="));
  // The target's comm may hold spaces: it runs from "comm=" to the last " pid=".
  const size_t comm = fields.find(" comm=");
  const size_t pid_at = fields.rfind(" pid=");
  if (!sig || comm == std::string_view::npos || pid_at == std::string_view::npos || pid_at < comm) {
    return;
  }
  const auto target = number<pid_t>(field(fields.substr(pid_at + 1), "pid="));
  if (!target) return;
  s.sig = *sig;
  s.result = res.value_or(0);
  s.target = *target;
  s.target_comm = std::string(fields.substr(comm + 6, pid_at - comm - 6));
  // A thread's earlier event that never got its stack is dropped: where it came from is unknown.
  pending_[h->tid] = Pending{std::move(s), {}};
}

void TraceEventReader::finish(pid_t tid, Output& out) {
  auto it = pending_.find(tid);
  if (it == pending_.end()) return;
  it->second.signal.origin = kernel_origin(it->second.frames);
  if (!it->second.signal.origin.empty()) out.signals.push_back(std::move(it->second.signal));
  pending_.erase(it);
}

}  // namespace reapcheck
