#include "harness/engine/run/case_pool.h"

#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "harness/engine/run/case_series.h"
#include "harness/engine/run/dispatch_order.h"
#include "harness/engine/run/observation_message.h"
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

// Runs cases one at a time, in a case worker or, for a pool of one, in this process: each worker
// its own cgroup area, since a sweep must not remove a group another worker's case has just
// created and not yet entered, and one series, which makes each next sandbox ahead.
class CaseWorker {
 public:
  CaseWorker(const std::vector<CaseJob>& jobs, const CaseOptions& options)
      : series_(jobs, in_area(options, cgroups_)) {}

  CaseObservation run(size_t index, bool last) {
    CaseObservation c = series_.run(index, last);
    cgroups_.sweep();
    return c;
  }

 private:
  static CaseOptions in_area(CaseOptions options, const CgroupArea& area) {
    options.cgroup_parent = area.path();
    return options;
  }

  CgroupArea cgroups_;
  CaseSeries series_;
};

// A job as the pool hands it to a worker: its index, and whether it is the last of the run (no
// sandbox is then made ahead for a next one).
std::string job_line(size_t index, bool last) {
  return std::to_string(index) + (last ? " last" : "") + "\n";
}

// The worker: reads jobs, one per line, and answers each with what its case observed, as one
// line (observation_message.h). EOF on the job pipe means there is no more work.
int worker_main(const std::vector<CaseJob>& jobs, const CaseOptions& options, int job_fd,
                int result_fd) {
  CaseWorker worker(jobs, options);
  LineReader in(job_fd);
  for (;;) {
    auto got = in.next(std::chrono::steady_clock::time_point::max());
    if (got.status != LineReader::Status::line) return 0;
    const size_t index = std::stoul(got.line);
    ObservationMessage answer{index, {}};
    try {
      answer.observed = worker.run(index, got.line.find(" last") != std::string::npos);
    } catch (const Interrupted&) {
      return kWorkerInterrupted;
    }
    if (!write_all(result_fd, write_observation_message(answer) + "\n")) return 1;
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

// The parent's side: hands each worker a job, judges what each sends back, and replaces a worker
// that died while there is work left.
class Pool {
 public:
  Pool(const std::vector<CaseJob>& jobs, const CaseOptions& options, const CaseDone& done)
      : jobs_(jobs), options_(options), done_(done), order_(dispatch_order(jobs)) {}

  void run(int workers) {
    const size_t wanted = std::min(static_cast<size_t>(std::max(workers, 1)), jobs_.size());
    for (size_t i = 0; i < wanted; ++i) add_worker();
    while (!pool_.empty()) {
      std::vector<pollfd> fds;
      fds.push_back({interrupt_fd(), POLLIN, 0});
      for (const Worker& w : pool_) fds.push_back({w.results.get(), POLLIN, 0});
      if (::poll(fds.data(), fds.size(), -1) < 0) {
        if (errno == EINTR) continue;
        reaper::throw_sys("poll the case workers");
      }
      if (fds[0].fd >= 0 && (fds[0].revents & POLLIN) != 0) take_interrupt(fds[0].fd);
      for (size_t i = pool_.size(); i-- > 0;) {
        if ((fds[i + 1].revents & (POLLIN | POLLHUP | POLLERR)) != 0) serve(i);
      }
    }
    if (interrupted_ != 0) throw Interrupted(interrupted_);
  }

 private:
  void add_worker() {
    pool_.push_back(start_worker(jobs_, options_, pool_));
    assign(pool_.back());
  }

  // Whether no more jobs are handed out: interrupted, or told to stop.
  bool stopping() const { return interrupted_ != 0 || stopped_; }

  void assign(Worker& w) {
    if (stopping() || next_ >= jobs_.size()) {
      w.jobs.reset();  // EOF: the worker exits
      return;
    }
    w.current = order_[next_++];
    if (!write_all(w.jobs.get(), job_line(*w.current, next_ == jobs_.size()))) w.jobs.reset();
  }

  // A terminal's Ctrl-C reaches the workers too; a SIGTERM sent to this process alone does not,
  // so pass it on. Each ends its case and reports nothing for it.
  void take_interrupt(int fd) {
    signalfd_siginfo info{};
    if (::read(fd, &info, sizeof info) != static_cast<ssize_t>(sizeof info)) return;
    interrupted_ = static_cast<int>(info.ssi_signo);
    end_cases();
  }

  // Every worker ends its case as an interrupt ends it, and gets no other.
  void end_cases() {
    for (Worker& w : pool_) {
      if (w.pidfd) reaper::pidfd_signal(w.pidfd.get(), SIGTERM);
      w.jobs.reset();
    }
  }

  // What worker `i` has to say: an observation, part of one, or its exit.
  void serve(size_t i) {
    Worker& w = pool_[i];
    auto got = w.reader->next(std::chrono::steady_clock::now());
    if (got.status == LineReader::Status::timeout) return;  // part of a line so far
    if (got.status == LineReader::Status::line) {
      if (!w.current) return;
      ObservationMessage answer = read_observation_message(got.line);
      const size_t index = *w.current;
      w.current.reset();
      if (answer.job != index) {
        answer.observed = lost(fmt::format("its worker answered for job {}", answer.job));
      }
      if (!done_(index, complete_case(jobs_[index], std::move(answer.observed))) && !stopping()) {
        stopped_ = true;
        end_cases();
      }
      assign(w);
      return;
    }
    int status = 0;  // EOF: the worker is exiting
    ::waitpid(w.pid, &status, 0);
    if (w.current && !stopping()) {
      done_(*w.current,
            complete_case(jobs_[*w.current],
                          lost("the worker process running this case " + describe_exit(status))));
    }
    pool_.erase(pool_.begin() + static_cast<std::ptrdiff_t>(i));
    if (!stopping() && next_ < jobs_.size()) add_worker();
  }

  static CaseObservation lost(std::string why) {
    CaseObservation c;
    c.blocked = Blocker{Blocker::Kind::setup_failed, std::move(why)};
    return c;
  }

  const std::vector<CaseJob>& jobs_;
  const CaseOptions& options_;
  const CaseDone& done_;
  const std::vector<size_t> order_;
  std::vector<Worker> pool_;
  size_t next_ = 0;  // in `order_`
  int interrupted_ = 0;
  bool stopped_ = false;  // `done_` said to stop
};

}  // namespace

void run_case_pool(const std::vector<CaseJob>& jobs, const CaseOptions& options, int workers,
                   const CaseDone& done) {
  if (workers > 1 && jobs.size() > 1) {
    Pool(jobs, options, done).run(workers);
    return;
  }
  // A pool of one is this process: a case's threads (the ledger's, real-time where it traces the
  // kernel) and what it holds on the host are then the run's own, as `reapcheck run -j 1` shows.
  CaseWorker worker(jobs, options);
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (!done(i, complete_case(jobs[i], worker.run(i, i + 1 == jobs.size())))) return;
  }
}

}  // namespace reapcheck
