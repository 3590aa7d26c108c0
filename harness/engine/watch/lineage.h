// The processes of a watched suite as the kernel's fork events tell them, and the test each
// belongs to. The reaper host's children are the command and the sibling agent (a bystander): a
// birth line that reaches the host through no bystander is the command's, even where the command
// exited before its own fork event could be read (`sh -c 'setsid daemon & exit'`), which leaves
// its children born of the host.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "harness/engine/bystanders/bystanders.h"
#include "harness/engine/census/census.h"
#include "harness/engine/watch/ctest_tests.h"
#include "harness/engine/watch/test_process.h"

namespace reapcheck {

class Lineage {
 public:
  Lineage(const Census& census, const Bystanders& bystanders, pid_t command, pid_t host,
          std::filesystem::path dir)
      : census_(census),
        bystanders_(bystanders),
        command_(command),
        host_(host),
        dir_(std::move(dir)) {}

  // Whether `pid` was started by the command (or is it), by birth.
  bool of_command(pid_t pid) const;
  // `pid` and what started it, up to the command.
  std::vector<ChainLink> chain(pid_t pid) const;
  // The test `pid` belongs to (test_process.h); empty for the command's own.
  TestOf test(pid_t pid) const { return test(chain(pid)); }
  // The same, for the process its chain() starts with.
  TestOf test(const std::vector<ChainLink>& chain) const;
  // Learns the names of the tests each ctest of the command ran (ctest_tests.h), asking each
  // again, where it ran, with `env`, by `deadline`: its tests are named so from then on.
  void learn_ctest_names(const std::vector<std::string>& env,
                         std::chrono::steady_clock::time_point deadline);

 private:
  static constexpr int kMaxDepth = 256;
  const Census& census_;
  const Bystanders& bystanders_;
  pid_t command_;
  pid_t host_;
  std::filesystem::path dir_;
  std::map<pid_t, std::vector<CTestTest>> ctest_tests_;  // by the ctest's pid
};

}  // namespace reapcheck
