// How fast the kernel tears a family of processes down, with no perl, reaper or harness in the
// way: the evidence for why a forked chain dies slower per process than a wide tree
// (docs/bench.md). Each iteration starts N pausing processes — siblings, a chain of forks, or a
// chain whose every link execs afresh — SIGKILLs them all through pidfds, and times until every
// pidfd says its process has exited.
//
//   build/bin/teardown_bench [--benchmark_filter=teardown/chain/]
#include <benchmark/benchmark.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "reaper/os/pidfd.h"

namespace {

enum class Shape { wide, chain, exec_chain };

// argv[1] of a re-executed link: --teardown-member DEPTH LINKS REPORT_FD PARENT
constexpr const char* kMemberFlag = "--teardown-member";

[[noreturn]] void member(int depth, int links, Shape shape, int report_fd, pid_t parent);

void start_link(int depth, int links, Shape shape, int report_fd) {
  const pid_t parent = ::getpid();
  if (::fork() != 0) return;
  if (shape == Shape::exec_chain) {
    const std::string args[] = {std::to_string(depth), std::to_string(links),
                                std::to_string(report_fd), std::to_string(parent)};
    ::execl("/proc/self/exe", "teardown_bench", kMemberFlag, args[0].c_str(), args[1].c_str(),
            args[2].c_str(), args[3].c_str(), nullptr);
    ::_exit(127);
  }
  member(depth, links, shape, report_fd, parent);
}

// A member dies with its parent, so an interrupted benchmark leaves nothing running; it reports
// its pid, starts the next link of a chain, and waits to be killed.
[[noreturn]] void member(int depth, int links, Shape shape, int report_fd, pid_t parent) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(1);  // the parent died before the prctl
  const pid_t self = ::getpid();
  (void)!::write(report_fd, &self, sizeof self);
  if (shape != Shape::wide && depth < links) start_link(depth + 1, links, shape, report_fd);
  for (;;) ::pause();
}

void teardown(benchmark::State& state, Shape shape) {
  const int links = static_cast<int>(state.range(0));
  for (auto _ : state) {
    reaper::Pipe report = reaper::make_pipe(false);  // re-executed links write to it too
    const int starts = shape == Shape::wide ? links : 1;
    for (int i = 0; i < starts; ++i) start_link(1, links, shape, report.write.get());
    report.write.reset();
    std::vector<reaper::UniqueFd> held;
    std::vector<int> pidfds;
    for (int i = 0; i < links; ++i) {
      pid_t pid = 0;
      if (::read(report.read.get(), &pid, sizeof pid) != sizeof pid) break;  // a link failed
      if (auto fd = reaper::pidfd_open(pid)) {
        pidfds.push_back(fd->get());
        held.push_back(std::move(*fd));
      }
    }
    const auto start = std::chrono::steady_clock::now();
    for (int fd : pidfds) reaper::pidfd_signal(fd, SIGKILL);
    const int left = reaper::pidfds_wait_exit(pidfds, start + std::chrono::minutes(1));
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    // Held pidfds die with their processes; reap ours, and any orphans when we are an init.
    while (::waitpid(-1, nullptr, 0) > 0 || errno == EINTR) {
    }
    if (static_cast<int>(pidfds.size()) != links || left > 0) {
      state.SkipWithError("a member did not start or did not die");
      break;
    }
  }
  state.counters["members"] = static_cast<double>(links);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 6 && std::strcmp(argv[1], kMemberFlag) == 0) {
    member(std::stoi(argv[2]), std::stoi(argv[3]), Shape::exec_chain, std::stoi(argv[4]),
           std::stoi(argv[5]));
  }
  const std::pair<const char*, Shape> shapes[] = {
      {"wide", Shape::wide}, {"chain", Shape::chain}, {"exec-chain", Shape::exec_chain}};
  for (const auto& [name, shape] : shapes) {
    benchmark::RegisterBenchmark((std::string("teardown/") + name).c_str(), teardown, shape)
        ->Arg(100)
        ->Arg(200)
        ->Arg(400)
        ->UseManualTime()
        ->Iterations(5)
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
