#include "harness/engine/watch/ctest_tests.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "harness/sandbox/init_reaping.h"
#include "reaper/agent.h"
#include "reaper/os/clone.h"
#include "reaper/os/pidfd.h"
#include "reaper/os/unique_fd.h"

namespace reapcheck {
namespace {

using Clock = std::chrono::steady_clock;

// A listing of 10,000 tests with their commands is a few MB: past this, it is not one.
constexpr size_t kListingBound = size_t{64} << 20;

// Reads `fd` to its end, or until `deadline` or the bound; empty unless it reached the end.
std::optional<std::string> read_to_end(int fd, Clock::time_point deadline) {
  std::string text;
  char buf[65536];
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    pollfd p{fd, POLLIN, 0};
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) {
      return std::nullopt;
    }
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) return text;
    if (n < 0 || text.size() + static_cast<size_t>(n) > kListingBound) return std::nullopt;
    text.append(buf, static_cast<size_t>(n));
  }
}

}  // namespace

std::vector<CTestTest> parse_ctest_listing(std::string_view json) {
  const auto j = nlohmann::json::parse(json, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("tests") || !j["tests"].is_array()) {
    throw std::runtime_error("not a ctest --show-only=json-v1 listing");
  }
  std::vector<CTestTest> out;
  for (const auto& t : j["tests"]) {
    if (!t.is_object() || !t.contains("name") || !t["name"].is_string()) continue;
    CTestTest test{t["name"].get<std::string>(), {}};
    if (t.contains("command") && t["command"].is_array()) {
      for (const auto& a : t["command"]) {
        if (a.is_string()) test.command.push_back(a.get<std::string>());
      }
    }
    if (!test.command.empty()) out.push_back(std::move(test));
  }
  return out;
}

std::string ctest_name(const std::vector<CTestTest>& tests, const std::vector<std::string>& argv) {
  const CTestTest* found = nullptr;
  for (const CTestTest& t : tests) {
    // The command, whole, at the end of argv: a script's interpreter (and its one argument on
    // the #! line) may come before it.
    if (t.command.size() > argv.size() ||
        !std::equal(t.command.begin(), t.command.end(),
                    argv.end() - static_cast<long>(t.command.size()))) {
      continue;
    }
    if (found != nullptr && found->name != t.name) return {};
    found = &t;
  }
  return found != nullptr ? found->name : std::string();
}

std::vector<CTestTest> list_ctest_tests(const std::vector<std::string>& argv,
                                        const std::string& cwd, const std::vector<std::string>& env,
                                        Clock::time_point deadline) {
  if (argv.empty() || std::filesystem::path(argv.front()).filename() != "ctest") return {};
  std::vector<std::string> args = argv;
  args.front() = reaper::program_of({argv, cwd, env, {}, -1, {}});
  args.emplace_back("--show-only=json-v1");
  const std::vector<char*> arg_ptrs = reaper::c_strings(args);
  const std::vector<char*> env_ptrs = reaper::c_strings(env);
  reaper::Pipe out = reaper::make_pipe();
  const reaper::UniqueFd null_fd(::open("/dev/null", O_RDWR | O_CLOEXEC));
  std::optional<reaper::UniqueFd> pidfd;
  {
    init::BlockChildSignals block;  // PID 1 reaps it: held by a pidfd before it can exit
    auto child = [&] {
      init::reset_before_exec();
      if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(126);
      ::dup2(null_fd.get(), STDIN_FILENO);
      ::dup2(out.write.get(), STDOUT_FILENO);
      ::dup2(null_fd.get(), STDERR_FILENO);
      ::execve(arg_ptrs.front(), arg_ptrs.data(), env_ptrs.data());
      ::_exit(127);
    };
    const pid_t pid = reaper::spawn_shared(0, child);
    if (pid < 0) return {};
    pidfd = reaper::pidfd_open(pid);
  }
  out.write.reset();
  const std::optional<std::string> text = read_to_end(out.read.get(), deadline);
  if (pidfd) reaper::pidfd_signal(pidfd->get(), SIGKILL);  // done, or out of time
  if (!text) return {};
  try {
    return parse_ctest_listing(*text);
  } catch (const std::runtime_error&) {
    return {};
  }
}

}  // namespace reapcheck
