#include "harness/engine/watch/lineage.h"

#include <set>

#include "harness/engine/census/processes.h"

namespace reapcheck {

bool Lineage::of_command(pid_t pid) const {
  pid_t at = pid;
  for (int depth = 0; depth < kMaxDepth && at > 1; ++depth) {
    if (at == command_) return true;
    if (at == host_) return depth > 0;
    if (!bystanders_.role_of(at).empty()) return false;
    at = census_.born_of(at).value_or(0);
  }
  return false;
}

std::vector<ChainLink> Lineage::chain(pid_t pid) const {
  std::vector<ChainLink> out;
  pid_t at = pid;
  for (int depth = 0; depth < kMaxDepth && at > 1 && at != host_; ++depth) {
    std::vector<std::string> argv = census_.forked_as(at);
    if (argv.empty()) {
      argv = kernel_processes().one(at, reaper::Detail::argv).value_or(reaper::ProcInfo{}).argv;
    }
    out.push_back({at, std::move(argv)});
    if (at == command_) break;
    at = census_.born_of(at).value_or(0);
  }
  return out;
}

TestOf Lineage::test(const std::vector<ChainLink>& chain) const {
  return test_of(chain, dir_, [this](pid_t ctest, const std::vector<std::string>& argv) {
    const auto it = ctest_tests_.find(ctest);
    return it == ctest_tests_.end() ? std::string() : ctest_name(it->second, argv);
  });
}

void Lineage::learn_ctest_names(const std::vector<std::string>& env,
                                std::chrono::steady_clock::time_point deadline) {
  std::set<pid_t> ctests;
  for (const auto& [child, parent] : census_.births()) {
    if (ctests.count(parent) != 0 || !of_command(parent)) continue;
    const std::vector<std::string> argv = census_.forked_as(parent);
    if (!argv.empty() && std::filesystem::path(argv.front()).filename() == "ctest") {
      ctests.insert(parent);
    }
  }
  for (pid_t ctest : ctests) {
    // Where it started, which its arguments (--test-dir) are relative to: its own folder changes
    // as it runs (into --test-dir, and each test's), its parent's is the one it was forked in.
    // The command the host started runs in the folder watched.
    const pid_t parent = census_.born_of(ctest).value_or(host_);
    const std::string cwd = parent == host_ ? std::string() : census_.forked_in(parent);
    ctest_tests_[ctest] = list_ctest_tests(census_.forked_as(ctest),
                                           cwd.empty() ? dir_.string() : cwd, env, deadline);
  }
}

}  // namespace reapcheck
