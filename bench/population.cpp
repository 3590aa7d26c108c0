#include "bench/population.h"

#include <sys/wait.h>
#include <unistd.h>

#include "reaper/os/proc_table.h"
#include "reaper/os/sys_error.h"

namespace reapcheck {

Population::Population(int total) {
  reaper::Pipe hold = reaper::make_pipe();
  const int present =
      static_cast<int>(reaper::ProcTable::read("/proc", reaper::Detail::stat).all().size());
  children_.reserve(static_cast<size_t>(std::max(total - present, 0)));
  for (int i = present; i < total; ++i) {
    const pid_t pid = ::fork();
    if (pid < 0) reaper::throw_sys("fork population member " + std::to_string(i));
    if (pid == 0) {
      hold.write.reset();
      char c;
      (void)!::read(hold.read.get(), &c, 1);  // EOF when the population ends
      ::_exit(0);
    }
    children_.push_back(pid);
  }
  hold_ = std::move(hold.write);
}

Population::~Population() {
  hold_.reset();
  for (pid_t pid : children_) ::waitpid(pid, nullptr, 0);
}

}  // namespace reapcheck
