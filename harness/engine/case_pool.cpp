#include "harness/engine/case_pool.h"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "harness/engine/case_series.h"
#include "harness/engine/dispatch_order.h"
#include "harness/model/result_json.h"
#include "harness/model/text.h"
#include "harness/sandbox/cgroup_area.h"
#include "harness/sandbox/kernel_signal_trace.h"
#include "harness/support/interrupt.h"
#include "harness/support/line_reader.h"
#include "harness/support/write_all.h"
#include "reaper/os/pidfd.h"
#include "reaper/os/sys_error.h"

namespace reapcheck {
namespace {

constexpr int kWorkerInterrupted = 130;

// The worker: reads job indices, one per line, and answers each with its result as one JSON
// line. EOF on the job pipe means there is no more work.
int worker_main(const std::vector<CaseJob>& jobs, const CaseOptions& options, int job_fd,
                int result_fd) {
  // Each worker its own cgroup area: a sweep must not remove a group another worker's case has
  // just created and not yet entered.
  CgroupArea cgroups;
  CaseOptions ours = options;
  ours.cgroup_parent = cgroups.path();
  CaseSeries series(jobs, ours);  // its cases, one at a time
  LineReader in(job_fd);
  for (;;) {
    auto got = in.next(std::chrono::steady_clock::time_point::max());
    if (got.status != LineReader::Status::line) return 0;
    const size_t index = std::stoul(got.line);
    CaseResult c;
    try {
      c = series.run(index);
    } catch (const Interrupted&) {
      return kWorkerInterrupted;
    }
    cgroups.sweep();
    if (!write_all(result_fd, json_text(nlohmann::json(c)) + "\n")) return 1;
  }
}

struct Worker {
  pid_t pid = 0;
  reaper::UniqueFd pidfd;
  reaper::UniqueFd jobs;     // write end: job indices
  reaper::UniqueFd results;  // read end: JSON lines
  std::unique_ptr<LineReader> reader;
  std::optional<size_t> current;  // the job it is running
};

Worker start_worker(const std::vector<CaseJob>& jobs, const CaseOptions& options,
                    const std::vector<Worker>& others) {
  reaper::Pipe job_pipe = reaper::make_pipe();
  reaper::Pipe result_pipe = reaper::make_pipe();
  // Anything buffered would otherwise be written twice, once by each process.
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) reaper::throw_sys("fork a case worker");
  if (pid == 0) {
    // SIGTERM is watched (interrupt.h): a worker whose parent dies ends its case cleanly.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(kWorkerInterrupted);
    for (const Worker& w : others) {
      ::close(w.jobs.get());
      ::close(w.results.get());
    }
    job_pipe.write.reset();
    result_pipe.read.reset();
    int rc = 1;
    try {
      rc = worker_main(jobs, options, job_pipe.read.get(), result_pipe.write.get());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "reapcheck: case worker: %s\n", e.what());
    }
    KernelSignalTrace::close_instance();
    std::fflush(stderr);
    ::_exit(rc);  // not exit(): the parent's atexit handlers and static objects are not ours
  }
  Worker w;
  w.pid = pid;
  auto fd = reaper::pidfd_open(pid);
  if (fd) w.pidfd = std::move(*fd);
  w.jobs = std::move(job_pipe.write);
  w.results = std::move(result_pipe.read);
  w.reader = std::make_unique<LineReader>(w.results.get());
  return w;
}

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status));
  return "exited with status " + std::to_string(WEXITSTATUS(status));
}

}  // namespace

void run_case_pool(const std::vector<CaseJob>& jobs, const CaseOptions& options, int workers,
                   const std::function<void(size_t, CaseResult)>& done) {
  std::vector<Worker> pool;
  const std::vector<size_t> order = dispatch_order(jobs);
  size_t next = 0;  // in `order`
  int interrupted = 0;

  auto assign = [&](Worker& w) {
    if (interrupted != 0 || next >= jobs.size()) {
      w.jobs.reset();  // EOF: the worker exits
      return;
    }
    w.current = order[next++];
    if (!write_all(w.jobs.get(), std::to_string(*w.current) + "\n")) w.jobs.reset();
  };
  const size_t wanted = std::min(static_cast<size_t>(std::max(workers, 1)), jobs.size());
  for (size_t i = 0; i < wanted; ++i) {
    pool.push_back(start_worker(jobs, options, pool));
    assign(pool.back());
  }

  while (!pool.empty()) {
    std::vector<pollfd> fds;
    fds.push_back({interrupt_fd(), POLLIN, 0});
    for (const Worker& w : pool) fds.push_back({w.results.get(), POLLIN, 0});
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      reaper::throw_sys("poll the case workers");
    }
    if (fds[0].fd >= 0 && (fds[0].revents & POLLIN) != 0) {
      signalfd_siginfo info{};
      if (::read(fds[0].fd, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
        interrupted = static_cast<int>(info.ssi_signo);
        // A terminal's Ctrl-C reaches the workers too; a SIGTERM sent to this process alone
        // does not, so pass it on. Each ends its case and reports nothing for it.
        for (Worker& w : pool) {
          if (w.pidfd) reaper::pidfd_signal(w.pidfd.get(), SIGTERM);
          w.jobs.reset();
        }
      }
    }
    for (size_t i = pool.size(); i-- > 0;) {
      if ((fds[i + 1].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      Worker& w = pool[i];
      auto got = w.reader->next(std::chrono::steady_clock::now());
      if (got.status == LineReader::Status::timeout) continue;  // part of a line so far
      if (got.status == LineReader::Status::line) {
        if (!w.current) continue;
        CaseResult c = nlohmann::json::parse(got.line).get<CaseResult>();
        const size_t index = *w.current;
        w.current.reset();
        done(index, std::move(c));
        assign(w);
        continue;
      }
      // EOF: the worker is exiting.
      int status = 0;
      ::waitpid(w.pid, &status, 0);
      if (w.current && interrupted == 0) {
        CaseResult lost;
        lost.blocked = Blocker{Blocker::Kind::setup_failed,
                               "the worker process running this case " + describe_exit(status)};
        done(*w.current, complete_case(jobs[*w.current], std::move(lost)));
      }
      pool.erase(pool.begin() + static_cast<std::ptrdiff_t>(i));
      if (interrupted == 0 && next < jobs.size()) {
        pool.push_back(start_worker(jobs, options, pool));
        assign(pool.back());
      }
    }
  }
  if (interrupted != 0) throw Interrupted(interrupted);
}

}  // namespace reapcheck
