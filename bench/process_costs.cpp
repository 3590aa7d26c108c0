#include "bench/process_costs.h"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <vector>

#include "bench/result.h"
#include "reaper/os/clone.h"

namespace reapcheck {
namespace {

// The median time of `runs` starts by `start`, each until its child is reaped; -1 if any child
// failed (exited non-zero).
double median_start(int runs, const std::function<pid_t()>& start) {
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    const auto begin = std::chrono::steady_clock::now();
    const pid_t pid = start();
    int status = 0;
    if (pid < 0 || ::waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0) {
      return -1;
    }
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin)
                     .count());
  }
  return median(std::move(ms));
}

// Spawns `argv` without copying this process (as the harness starts agents and bystanders).
pid_t spawn(char* const* argv) {
  auto child = [argv] {
    ::execvp(argv[0], argv);
    ::_exit(127);
  };
  return reaper::spawn_shared(0, child);
}

}  // namespace

ProcessCosts measure_process_costs(int runs) {
  ProcessCosts c;
  c.fork_ms = median_start(runs, [] {
    const pid_t pid = ::fork();
    if (pid == 0) ::_exit(0);
    return pid;
  });
  static char true_path[] = "/bin/true";
  static char* const true_argv[] = {true_path, nullptr};
  c.spawn_ms = median_start(runs, [] { return spawn(true_argv); });
  static char perl[] = "perl";
  static char e[] = "-e";
  static char zero[] = "0";
  static char* const perl_argv[] = {perl, e, zero, nullptr};
  c.perl_ms = median_start(runs, [] { return spawn(perl_argv); });
  return c;
}

}  // namespace reapcheck
