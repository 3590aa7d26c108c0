#include "harness/engine/watch/watched_command.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

#include "harness/engine/run/case_sandbox.h"
#include "harness/sandbox/sandbox.h"
#include "reaper/os/cgroup_fs.h"
#include "reaper/os/sys_error.h"

namespace reapcheck {
namespace {

// The command's output on its way out: the sandbox's processes hold the write end, a thread of
// ours reads it to its end (every writer gone: the sandbox has ended).
class Relay {
 public:
  explicit Relay(const std::function<void(std::string_view)>& shown) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) reaper::throw_sys("pipe for the command's output");
    read_ = reaper::UniqueFd(fds[0]);
    write_ = reaper::UniqueFd(fds[1]);
    reader_ = std::thread([fd = read_.get(), &shown] {
      char buf[8192];
      for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        shown(std::string_view(buf, static_cast<size_t>(n)));
      }
    });
  }
  ~Relay() {
    write_.reset();
    reader_.join();
  }
  Relay(const Relay&) = delete;
  Relay& operator=(const Relay&) = delete;

  // The end the command writes to: PID 1 inherits it, close-on-exec, and hands it to the command
  // as its stdout and stderr.
  int writer() const { return write_.get(); }
  // Once the sandbox has ended: ours is the last write end, and the reader then sees its end.
  void close_writer() { write_.reset(); }

 private:
  reaper::UniqueFd read_;
  reaper::UniqueFd write_;
  std::thread reader_;
};

// The backstop: the command's own time, and the case's set-up and settle around it.
std::chrono::milliseconds deadline_of(const CaseOptions& options,
                                      std::chrono::milliseconds timeout) {
  return timeout + options.ready + options.settle + std::chrono::seconds(kDyingBoundSeconds) +
         std::chrono::seconds(10);
}

}  // namespace

WatchObservation watch_in_sandbox(const Scenario& scenario, const CaseOptions& options,
                                  std::chrono::milliseconds timeout,
                                  const std::function<void(std::string_view)>& shown) {
  Relay relay(shown);
  ScratchDir scratch(options.layout.temp);
  CaseOptions inside = options;
  inside.command_output_fd = relay.writer();
  const CaseJob job{&scenario};
  const SandboxOutcome outcome = run_in_sandbox(
      [&] {
        CaseOptions ours = inside;
        if (!ours.cgroup_parent.empty()) ours.cgroup_parent = reaper::cgroup_home();
        return write_watch_message(
            observe_watch(scenario, ours, scratch_inside(scratch.path()), timeout));
      },
      sandbox_options(options, scratch.path(), deadline_of(options, timeout),
                      projects_of({&job, 1})));
  relay.close_writer();
  if (outcome.status == SandboxOutcome::Status::finished) {
    return read_watch_message(outcome.output);
  }
  WatchObservation out;
  out.parts.emplace_back();
  out.parts.back().observed.blocked =
      Blocker{outcome.status == SandboxOutcome::Status::unavailable ? Blocker::Kind::unsupported
                                                                    : Blocker::Kind::setup_failed,
              outcome.output};
  return out;
}

}  // namespace reapcheck
