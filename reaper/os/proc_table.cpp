#include "reaper/os/proc_table.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>

#include "reaper/os/read_file.h"
#include "reaper/os/sys_error.h"
#include "reaper/os/task_iter.h"
#include "reaper/os/unique_fd.h"

namespace reaper {
namespace {

template <typename T>
bool parse_number(std::string_view s, T& out) {
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

// Reads a whole /proc file relative to `dirfd`. Empty when the process has vanished.
// /proc/<pid>/stat is generated whole on the first read and is far shorter than the buffer,
// so one read suffices: a snapshot is one openat, one read and one close per process.
std::optional<StatFields> read_stat_at(int proc_fd, const std::string& dir) {
  UniqueFd fd(::openat(proc_fd, (dir + "/stat").c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return std::nullopt;
  char buf[1024];
  ssize_t n;
  do {
    n = ::read(fd.get(), buf, sizeof buf);
  } while (n < 0 && errno == EINTR);
  if (n <= 0) return std::nullopt;
  return parse_stat(std::string_view(buf, static_cast<size_t>(n)));
}

// `dir` is the process's directory, relative to `proc_fd` (or absolute, with AT_FDCWD).
std::optional<ProcInfo> read_pid_at(int proc_fd, const std::string& dir, Detail detail) {
  auto stat = read_stat_at(proc_fd, dir);
  if (!stat) return std::nullopt;
  ProcInfo info;
  static_cast<StatFields&>(info) = std::move(*stat);
  if (detail != Detail::stat) {
    if (auto cmdline = read_file_at(proc_fd, dir + "/cmdline")) info.argv = parse_cmdline(*cmdline);
  }
  if (detail == Detail::full) {
    char buf[4096];
    ssize_t n = ::readlinkat(proc_fd, (dir + "/cwd").c_str(), buf, sizeof buf);
    if (n > 0) info.cwd.assign(buf, static_cast<size_t>(n));
  }
  return info;
}

UniqueFd open_proc_root(const std::string& proc_root) {
  UniqueFd fd(::open(proc_root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd) throw_sys("open " + proc_root);
  return fd;
}

}  // namespace

std::optional<StatFields> parse_stat(std::string_view text) {
  const auto open = text.find('(');
  const auto close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return std::nullopt;
  }
  StatFields f;
  std::string_view pid_text = text.substr(0, open);
  while (!pid_text.empty() && pid_text.back() == ' ') pid_text.remove_suffix(1);
  if (!parse_number(pid_text, f.pid)) return std::nullopt;
  f.comm = std::string(text.substr(open + 1, close - open - 1));

  // Fields after the comm, numbered as in proc(5): 3 = state, 4 = ppid, 5 = pgrp,
  // 6 = session, 9 = flags, 20 = num_threads, 22 = starttime, 52 = exit_code.
  std::string_view rest = text.substr(close + 1);
  int field = 2;
  size_t i = 0;
  while (i < rest.size() && field < 52) {
    while (i < rest.size() && rest[i] == ' ') ++i;
    size_t end = rest.find(' ', i);
    if (end == std::string_view::npos) end = rest.size();
    std::string_view tok = rest.substr(i, end - i);
    while (!tok.empty() && tok.back() == '\n') tok.remove_suffix(1);
    i = end;
    if (tok.empty()) break;
    ++field;
    bool ok = true;
    switch (field) {
      case 3:
        ok = tok.size() == 1;
        f.state = tok[0];
        break;
      case 4:
        ok = parse_number(tok, f.ppid);
        break;
      case 5:
        ok = parse_number(tok, f.pgid);
        break;
      case 6:
        ok = parse_number(tok, f.sid);
        break;
      case 9:
        ok = parse_number(tok, f.flags);
        break;
      case 20:
        ok = parse_number(tok, f.threads);
        break;
      case 22:
        ok = parse_number(tok, f.start_time);
        break;
      case 52:
        ok = parse_number(tok, f.exit_code);
        break;
      default:
        break;
    }
    if (!ok) return std::nullopt;
  }
  if (field < 22) return std::nullopt;
  return f;
}

std::vector<std::string> parse_cmdline(std::string_view text) {
  std::vector<std::string> argv;
  while (!text.empty()) {
    size_t end = text.find('\0');
    if (end == std::string_view::npos) end = text.size();
    argv.emplace_back(text.substr(0, end));
    text.remove_prefix(std::min(end + 1, text.size()));
  }
  return argv;
}

std::string status_field(pid_t pid, std::string_view field) {
  const auto text = read_file_at(AT_FDCWD, "/proc/" + std::to_string(pid) + "/status");
  return text ? status_field(std::string_view(*text), field) : std::string();
}

std::string status_field(std::string_view status, std::string_view field) {
  std::string_view rest = status;
  while (!rest.empty()) {
    const size_t end = std::min(rest.find('\n'), rest.size());
    std::string_view line = rest.substr(0, end);
    rest.remove_prefix(std::min(end + 1, rest.size()));
    if (line.size() > field.size() && line.substr(0, field.size()) == field &&
        line[field.size()] == ':') {
      line.remove_prefix(field.size() + 1);
      while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
      return std::string(line);
    }
  }
  return {};
}

ProcTable ProcTable::read(const std::string& proc_root, Detail detail) {
  if (detail == Detail::stat && proc_root == "/proc") {
    if (auto procs = read_task_iter()) {
      ProcTable table;
      table.procs_ = std::move(*procs);
      return table;
    }
  }
  return read_proc_files(proc_root, detail);
}

ProcTable ProcTable::read_proc_files(const std::string& proc_root, Detail detail) {
  UniqueFd proc_fd = open_proc_root(proc_root);
  // A failed dup() says why (EMFILE), where fdopendir(-1) would say "Bad file descriptor".
  const int copy = ::dup(proc_fd.get());
  if (copy < 0) throw_sys("opendir " + proc_root);
  DIR* dir = ::fdopendir(copy);
  if (dir == nullptr) {
    const int err = errno;
    ::close(copy);
    errno = err;
    throw_sys("opendir " + proc_root);
  }
  std::vector<ProcInfo> procs;
  while (dirent* ent = ::readdir(dir)) {
    pid_t pid = 0;
    if (!parse_number(std::string_view(ent->d_name), pid)) continue;
    if (auto info = read_pid_at(proc_fd.get(), std::to_string(pid), detail)) {
      procs.push_back(std::move(*info));
    }
  }
  ::closedir(dir);
  return of(std::move(procs));
}

ProcTable ProcTable::of(std::vector<ProcInfo> procs) {
  ProcTable table;
  table.procs_ = std::move(procs);
  std::sort(table.procs_.begin(), table.procs_.end(),
            [](const ProcInfo& a, const ProcInfo& b) { return a.pid < b.pid; });
  return table;
}

std::optional<ProcInfo> ProcTable::read_one(pid_t pid, Detail detail,
                                            const std::string& proc_root) {
  // No fd for the root: the signal ledger reads a few processes at each of the reaper's calls.
  return read_pid_at(AT_FDCWD, proc_root + "/" + std::to_string(pid), detail);
}

const ProcInfo* ProcTable::find(pid_t pid) const {
  auto it = std::lower_bound(procs_.begin(), procs_.end(), pid,
                             [](const ProcInfo& p, pid_t v) { return p.pid < v; });
  return it != procs_.end() && it->pid == pid ? &*it : nullptr;
}

}  // namespace reaper
