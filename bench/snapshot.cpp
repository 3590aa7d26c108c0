#include "bench/snapshot.h"

#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "bench/population.h"
#include "harness/sandbox/sandbox.h"
#include "reaper/os/proc_table.h"
#include "reaper/os/sys_error.h"
#include "reaper/os/task_iter.h"

extern char** environ;

namespace reapcheck {
namespace {

using Clock = std::chrono::steady_clock;

double median_us(int iterations, const std::function<void()>& fn) {
  std::vector<double> us;
  for (int i = 0; i < iterations; ++i) {
    const auto t = Clock::now();
    fn();
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t).count());
  }
  return median(std::move(us));
}

}  // namespace

size_t ps_snapshot() {
  reaper::Pipe out = reaper::make_pipe();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out.write.get(), STDOUT_FILENO);
  const char* argv[] = {"ps", "-ax", "-o", "pid,ppid", nullptr};
  pid_t pid = 0;
  const int rc =
      ::posix_spawnp(&pid, "ps", &actions, nullptr, const_cast<char* const*>(argv), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) reaper::throw_sys("spawn ps", rc);
  out.write.reset();
  std::string text;
  char buf[65536];
  for (ssize_t n; (n = ::read(out.read.get(), buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  ::waitpid(pid, nullptr, 0);
  std::istringstream in(text);
  std::string line;
  size_t rows = 0;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    pid_t p = 0, pp = 0;
    if (fields >> p >> pp) ++rows;
  }
  return rows;
}

size_t open_floor_snapshot() {
  reaper::UniqueFd proc(::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  DIR* dir = ::fdopendir(::dup(proc.get()));
  if (dir == nullptr) reaper::throw_sys("opendir /proc");
  size_t opened = 0;
  while (dirent* e = ::readdir(dir)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    const std::string rel = std::string(e->d_name) + "/stat";
    reaper::UniqueFd fd(::openat(proc.get(), rel.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd) ++opened;
  }
  ::closedir(dir);
  return opened;
}

SnapshotCost measure_snapshot(int processes, int iterations, const std::filesystem::path& temp) {
  ScratchDir scratch(temp);
  SandboxOutcome outcome = run_in_sandbox(
      [&] {
        Population population(processes);
        SnapshotCost c;
        c.iterations = iterations;
        c.processes =
            static_cast<int>(reaper::ProcTable::read("/proc", reaper::Detail::stat).all().size());
        c.proc_us =
            median_us(iterations, [] { reaper::ProcTable::read("/proc", reaper::Detail::stat); });
        c.source = reaper::task_iter_available() ? "bpf-task-iterator" : "proc-files";
        c.proc_files_us = median_us(
            iterations, [] { reaper::ProcTable::read_proc_files("/proc", reaper::Detail::stat); });
        c.proc_full_us = median_us(
            iterations, [] { reaper::ProcTable::read_proc_files("/proc", reaper::Detail::full); });
        c.ps_us = median_us(iterations, [] { ps_snapshot(); });
        c.open_floor_us = median_us(iterations, [] { open_floor_snapshot(); });
        return nlohmann::json(c).dump();
      },
      {std::chrono::minutes(5), scratch.path()});
  if (outcome.status != SandboxOutcome::Status::finished) {
    throw std::runtime_error("the snapshot benchmark's sandbox failed: " + outcome.output);
  }
  return nlohmann::json::parse(outcome.output).get<SnapshotCost>();
}

}  // namespace reapcheck
