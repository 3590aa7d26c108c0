#include "harness/engine/observed_tree.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/wait.h>

#include <algorithm>
#include <map>
#include <regex>

#include "harness/engine/ports.h"
#include "harness/model/text.h"
#include "reaper/os/backoff.h"
#include "reaper/os/pidfd.h"
#include "reaper/os/read_file.h"

namespace reapcheck {
namespace {

using Clock = std::chrono::steady_clock;

// A parent chain is short; the bound only stops a loop on a read that raced with reparenting.
constexpr int kMaxDepth = 4096;
constexpr size_t kMaxRole = 48;
// The log is read from where the last look stopped; a line longer than this is matched in parts.
constexpr size_t kMaxLine = size_t{64} * 1024;

bool is_interpreter(const std::string& program) {
  static const std::regex names(
      "(node|nodejs|deno|bun|python[0-9.]*|perl|ruby|php|sh|bash|dash|"
      "zsh|busybox|java)");
  return std::regex_match(program, names);
}

std::string base_name(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Whether the tree is "in" the state the condition asks for; what it waits for otherwise.
struct Condition {
  const ReadyWatch& w;
  Clock::time_point started = Clock::now();
  std::uintmax_t log_offset = 0;
  std::string partial;  // the log's last, unfinished line

  bool met() {
    if (w.ready.port != 0) return port_listening(w.ready.port);
    if (!w.ready.log.empty()) return log_matches();
    return Clock::now() >= started + std::chrono::milliseconds(w.ready.after_ms);
  }

  bool log_matches() {
    const std::string text = reaper::read_file(w.log.string());
    if (text.size() <= log_offset) return false;
    partial += text.substr(log_offset);
    log_offset = text.size();
    const std::regex pattern(w.ready.log, std::regex::ECMAScript);
    size_t start = 0;
    for (size_t nl = partial.find('\n'); nl != std::string::npos; nl = partial.find('\n', start)) {
      if (std::regex_search(partial.begin() + static_cast<long>(start),
                            partial.begin() + static_cast<long>(nl), pattern)) {
        return true;
      }
      start = nl + 1;
    }
    partial.erase(0, start);
    // A prompt without its newline ("ready in 300 ms" then a spinner) counts too.
    if (std::regex_search(partial, pattern)) return true;
    if (partial.size() > kMaxLine) partial.erase(0, partial.size() - kMaxLine);
    return false;
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

std::vector<const reaper::ProcInfo*> observed_tree(const reaper::ProcTable& table, pid_t agent,
                                                   const std::set<pid_t>& outside) {
  std::map<pid_t, bool> verdict;  // pid → of the tree, for chains already walked
  auto of_tree = [&](pid_t pid) {
    std::vector<pid_t> chain;
    bool tree = false;
    for (int depth = 0; depth < kMaxDepth; ++depth) {
      if (auto it = verdict.find(pid); it != verdict.end()) {
        tree = it->second;
        break;
      }
      chain.push_back(pid);
      if (pid == agent) {
        tree = true;
        break;
      }
      const reaper::ProcInfo* p = table.find(pid);
      if (outside.count(pid) != 0 || p == nullptr) break;
      if (p->ppid <= 1) {  // an orphan the namespace's init adopted
        tree = true;
        break;
      }
      pid = p->ppid;
    }
    for (pid_t c : chain) verdict[c] = tree;
    return tree;
  };
  std::vector<const reaper::ProcInfo*> out;
  for (const reaper::ProcInfo& p : table.all()) {
    if (p.pid != 1 && outside.count(p.pid) == 0 && of_tree(p.pid)) out.push_back(&p);
  }
  return out;
}

std::string role_of(const reaper::ProcInfo& p) {
  if (p.argv.empty()) return printable(p.comm);
  std::string role = base_name(p.argv.front());
  const bool interpreter = is_interpreter(role);
  for (size_t i = 1; i < p.argv.size(); ++i) {
    const std::string& arg = p.argv[i];
    if (interpreter && arg == "-c") {
      role += " -c";
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

std::vector<std::string> tree_state(const std::vector<const reaper::ProcInfo*>& tree) {
  std::vector<std::string> out;
  out.reserve(tree.size() + 1);
  for (const reaper::ProcInfo* p : tree) {
    out.push_back(
        fmt::format("{} {} {} {}", p->pid, p->start_time, p->comm, fmt::join(p->argv, " ")));
  }
  // The last field of /proc/loadavg: the last pid this PID namespace allocated.
  const std::string load = reaper::read_file("/proc/loadavg");
  const auto space = load.find_last_of(' ');
  out.push_back(space == std::string::npos ? load : load.substr(space + 1));
  return out;
}

std::string await_ready(const ReadyWatch& w) {
  Condition condition{w};
  reaper::Backoff look(std::chrono::milliseconds(20));
  while (!condition.met()) {
    if (reaper::pidfd_exited(w.agent_pidfd)) return agent_exited(w.agent_pidfd);
    if (Clock::now() >= w.deadline) return "it was still waiting for " + condition.awaited();
    look.wait(w.deadline, w.agent_pidfd);
  }
  std::vector<std::string> last = w.tree_state();
  auto quiet_since = Clock::now();
  reaper::Backoff settle(std::chrono::milliseconds(50));
  for (;;) {
    if (reaper::pidfd_exited(w.agent_pidfd)) return agent_exited(w.agent_pidfd);
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
