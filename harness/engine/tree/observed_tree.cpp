#include "harness/engine/tree/observed_tree.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/wait.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <set>

#include "harness/engine/census/ports.h"
#include "harness/model/line_pattern.h"
#include "harness/model/text.h"
#include "reaper/os/backoff.h"
#include "reaper/os/pidfd.h"

namespace reapcheck {
namespace {

using Clock = std::chrono::steady_clock;

// A parent chain is short; the bound only stops a loop on a read that raced with reparenting.
constexpr int kMaxDepth = 4096;
constexpr size_t kMaxRole = 48;
// A line is matched by its last kMaxLine bytes; the log is read that much a look.
constexpr size_t kMaxLine = 4096;

bool is_interpreter(const std::string& program) {
  static const std::set<std::string, std::less<>> names = {
      "node", "nodejs", "deno", "bun", "perl",    "ruby", "php",
      "sh",   "bash",   "dash", "zsh", "busybox", "java"};
  if (names.count(program) != 0) return true;
  // python, python3, python3.11
  return program.rfind("python", 0) == 0 &&
         program.find_first_not_of("0123456789.", 6) == std::string::npos;
}

std::string base_name(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Whether the tree is in the state the condition asks for; what it waits for otherwise.
struct Condition {
  explicit Condition(const ReadyWatch& watch) : w(watch) {
    if (!w.ready.log.empty()) pattern.emplace(w.ready.log);
  }

  const ReadyWatch& w;
  Clock::time_point started = Clock::now();
  std::ifstream log{w.log, std::ios::binary};
  std::string partial;  // the log's last, unfinished line
  std::optional<LinePattern> pattern;

  bool met() {
    if (w.ready.port != 0) return port_listening(w.ready.port);
    if (!w.ready.log.empty()) return log_matches();
    return Clock::now() >= started + std::chrono::milliseconds(w.ready.after_ms);
  }

  // Reads on from where the last look stopped, to the end, and matches each line.
  bool log_matches() {
    char chunk[kMaxLine];
    log.clear();  // past the end last time: the agent may have written more since
    for (;;) {
      log.read(chunk, sizeof chunk);
      const auto got = static_cast<size_t>(log.gcount());
      if (got == 0) break;
      for (size_t i = 0; i < got; ++i) {
        if (chunk[i] != '\n') {
          partial += chunk[i];
          continue;
        }
        if (matches()) return true;
        partial.clear();
      }
      if (partial.size() > kMaxLine) partial.erase(0, partial.size() - kMaxLine);
    }
    // A prompt without its newline ("ready in 300 ms" then a spinner) counts too.
    return matches();
  }

  // The line so far, without a terminal's carriage return, and only its end when it is long:
  // std::regex recurses per character, and a line of megabytes would overflow the stack.
  bool matches() const {
    std::string_view line = partial;
    if (line.size() > kMaxLine) line.remove_prefix(line.size() - kMaxLine);
    while (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return pattern->found_in(line);
  }

  std::string awaited() const {
    if (w.ready.port != 0) return fmt::format("port {} to be listened on", w.ready.port);
    if (!w.ready.log.empty()) return fmt::format("a line of its output to match '{}'", w.ready.log);
    return fmt::format("{} ms to pass", w.ready.after_ms);
  }
};

std::string agent_exited(int pidfd) {
  const auto status = reaper::pidfd_exit_status(pidfd);
  std::string how;
  if (status && WIFEXITED(*status)) how = fmt::format(" (status {})", WEXITSTATUS(*status));
  if (status && WIFSIGNALED(*status)) how = fmt::format(" (signal {})", WTERMSIG(*status));
  return "the agent exited before it was ready" + how;
}

}  // namespace

std::vector<const reaper::ProcInfo*> observed_tree(const reaper::ProcTable& table,
                                                   const TreeBounds& bounds) {
  auto of_tree = [&](const reaper::ProcInfo& self) {
    pid_t pid = self.pid;
    for (int depth = 0; depth < kMaxDepth; ++depth) {
      if (pid == bounds.agent) return true;
      if (bounds.bystanders.count(pid) != 0) return false;
      const reaper::ProcInfo* p = table.find(pid);
      if (p == nullptr) return false;
      if (p->ppid <= 0 || bounds.adopters.count(p->ppid) != 0) {
        return self.sid != bounds.harness_sid;  // an orphan taken in, or a helper of theirs
      }
      pid = p->ppid;
    }
    return false;
  };
  std::vector<const reaper::ProcInfo*> out;
  for (const reaper::ProcInfo& p : table.all()) {
    if (bounds.adopters.count(p.pid) == 0 && of_tree(p)) out.push_back(&p);
  }
  return out;
}

std::string role_of(const reaper::ProcInfo& p) {
  if (p.argv.empty()) return printable(p.comm);
  std::string role = base_name(p.argv.front());
  const bool interpreter = is_interpreter(role);
  for (size_t i = 1; i < p.argv.size(); ++i) {
    const std::string& arg = p.argv[i];
    // Code given inline is no name: the option says what it is; a module is named.
    if (interpreter && (arg == "-c" || arg == "-e" || arg == "--eval" || arg == "-p")) {
      role += " " + arg;
      break;
    }
    if (interpreter && arg == "-m" && i + 1 < p.argv.size()) {
      role += " -m " + p.argv[i + 1];
      break;
    }
    if (interpreter && !arg.empty() && arg.front() != '-') {
      role += " " + base_name(arg);
      break;
    }
    if (!interpreter) {
      if (arg.rfind("--", 0) == 0 && arg.size() > 2) role += " " + arg.substr(0, arg.find('='));
      break;
    }
  }
  role = printable(role);
  return role.size() > kMaxRole ? role.substr(0, kMaxRole) : role;
}

std::string read_tail(const std::filesystem::path& file, size_t bytes) {
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  if (!in) return {};
  const auto size = static_cast<size_t>(in.tellg());
  const size_t from = size > bytes ? size - bytes : 0;
  in.seekg(static_cast<std::streamoff>(from));
  std::string out(size - from, '\0');
  in.read(out.data(), static_cast<std::streamsize>(out.size()));
  out.resize(static_cast<size_t>(in.gcount()));
  return from > 0 ? "…" + out : out;
}

std::vector<std::string> tree_state(const std::vector<const reaper::ProcInfo*>& tree,
                                    std::string last_pid) {
  std::vector<std::string> out;
  out.reserve(tree.size() + 1);
  for (const reaper::ProcInfo* p : tree) {
    out.push_back(
        fmt::format("{} {} {} {}", p->pid, p->start_time, p->comm, fmt::join(p->argv, " ")));
  }
  out.push_back(std::move(last_pid));
  return out;
}

std::string await_ready(const ReadyWatch& w) {
  Condition condition(w);
  reaper::Backoff look(std::chrono::milliseconds(20));
  // Without a condition the tree is ready once quiet.
  while (!condition.met()) {
    if (reaper::pidfd_exited(w.agent_pidfd)) return agent_exited(w.agent_pidfd);
    if (Clock::now() >= w.deadline) return "it was still waiting for " + condition.awaited();
    look.wait(w.deadline, w.agent_pidfd);
  }
  std::vector<std::string> last = w.tree_state();
  auto quiet_since = Clock::now();
  reaper::Backoff settle(std::chrono::milliseconds(50));
  for (;;) {
    if (reaper::pidfd_exited(w.agent_pidfd)) {
      return agent_exited(w.agent_pidfd) + ", while its tree was settling after " +
             condition.awaited();
    }
    const auto now = Clock::now();
    if (now >= quiet_since + w.quiet) return {};
    if (now >= w.deadline) {
      return fmt::format("its tree never went {} ms without a fork or an exec", w.quiet.count());
    }
    settle.wait(std::min(w.deadline, quiet_since + w.quiet), w.agent_pidfd);
    std::vector<std::string> state = w.tree_state();
    if (state != last) {
      last = std::move(state);
      quiet_since = Clock::now();
    }
  }
}

}  // namespace reapcheck

namespace reapcheck {

std::variant<ObservedTree, std::string> observe_when_ready(const Processes& processes,
                                                           const TreeBounds& bounds,
                                                           ReadyWatch watch, Census& census) {
  reaper::ProcTable table;
  auto scan = [&] {
    table = processes.table(reaper::Detail::full);
    return observed_tree(table, bounds);
  };
  watch.tree_state = [&] { return tree_state(scan(), processes.last_pid()); };
  if (std::string why = await_ready(watch); !why.empty()) {
    std::vector<std::string> seen;
    for (const reaper::ProcInfo* p : scan()) {
      seen.push_back(fmt::format("{} (pid {}, {})", role_of(*p), p->pid, p->state));
    }
    return fmt::format("the command was not ready: {}; its processes then: {}", why,
                       seen.empty() ? "none" : fmt::format("{}", fmt::join(seen, ", ")));
  }
  ObservedTree tree;
  std::vector<pid_t> pids;
  for (const reaper::ProcInfo* p : scan()) {
    // The agent by the pidfd held since its spawn: its pid cannot have been recycled.
    auto fd = p->pid == bounds.agent ? std::optional(reaper::dup_fd(watch.agent_pidfd))
                                     : processes.hold(p->pid);
    // Gone since the look, or a zombie its parent has not reaped: dead, no member to kill.
    if (!fd || reaper::pidfd_exited(fd->get())) continue;
    const std::string role = p->pid == bounds.agent ? "agent" : role_of(*p);
    census.add_member(p->pid, role, fd->get());
    tree.members.push_back(Member{p->pid, role, std::move(*fd)});
    pids.push_back(p->pid);
  }
  for (const auto& [port, holder] : processes.ports_held_by(pids)) {
    const pid_t h = holder;
    const auto m = std::find_if(tree.members.begin(), tree.members.end(),
                                [&](const Member& x) { return x.pid == h; });
    tree.ports.emplace_back(port, m->role);
  }
  return tree;
}

}  // namespace reapcheck
