#include "harness/engine/reaper_side/inside_reaper.h"

#include <signal.h>
#include <sys/wait.h>

#include "reaper/os/pidfd.h"

namespace reapcheck {

void InsideReaper::adopt(pid_t pid, reaper::UniqueFd pidfd, Census& census) {
  census.add_reaper(pid, std::string(kRole), pidfd.get());
  pid_ = pid;
  pidfd_ = std::move(pidfd);
}

ReaperHost::Reply InsideReaper::run(DeathWatch& watch, Clock::time_point deadline) {
  ReaperHost::Reply reply;
  const std::string who = "the agent's own kill command (pid " + std::to_string(pid_) + ")";
  if (!reaper::pidfd_signal(pidfd_.get(), SIGUSR2)) {
    reply.error = who + " had exited before it was asked to kill";
    return reply;
  }
  watch.wait(deadline, pidfd_.get());
  if (!reaper::pidfd_exited(pidfd_.get())) {
    reaper::pidfd_try_signal(pidfd_.get(), SIGKILL);
    reply.status = ReaperHost::Reply::Status::timeout;
    reply.error = who + " did not finish within its deadline";
    return reply;
  }
  reply.steps = {"SIGUSR2 to " + who + ", which ran the command on the agent's tree and exited"};
  // An exit with a status of its own is its failure, as an exec: command's is. Killed by a
  // signal, it may have been by its own kill: it is of the tree it kills.
  if (const auto status = reaper::pidfd_exit_status(pidfd_.get());
      status && WIFEXITED(*status) && WEXITSTATUS(*status) != 0) {
    reply.error = who + "'s command exited with status " + std::to_string(WEXITSTATUS(*status));
    return reply;
  }
  reply.status = ReaperHost::Reply::Status::ok;
  return reply;
}

}  // namespace reapcheck
