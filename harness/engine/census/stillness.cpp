#include "harness/engine/census/stillness.h"

#include <cstdlib>
#include <filesystem>
#include <string>

#include "harness/engine/census/thread_wait.h"
#include "reaper/os/proc_table.h"
#include "reaper/os/read_file.h"

namespace reapcheck {

ThreadRuns thread_runs(const std::vector<pid_t>& pids) {
  ThreadRuns out;
  for (pid_t pid : pids) {
    std::error_code ec;
    for (const auto& task :
         std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
      // One read of the file: its state and its counts are of the same moment.
      const std::string status = reaper::read_file(task.path().string() + "/status");
      if (status.empty()) continue;  // the thread has gone: the next look will miss it too
      const std::string state = reaper::status_field(status, "State");
      out.runnable |= state.empty() || state.front() == 'R';
      const auto count = [&](const char* field) {
        return std::strtoull(reaper::status_field(status, field).c_str(), nullptr, 10);
      };
      out.switches[tid_of(task.path().string())] =
          count("voluntary_ctxt_switches") + count("nonvoluntary_ctxt_switches");
    }
  }
  return out;
}

bool none_ran(const ThreadRuns& before, const ThreadRuns& after) {
  return !before.runnable && !after.runnable && before.switches == after.switches;
}

}  // namespace reapcheck
