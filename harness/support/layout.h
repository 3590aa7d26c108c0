// Where things are for a run: reapcheck's own scenarios, fixtures and helpers, the host folders a
// case may reach, the programs of PATH and the folder for temporary files. One value, made by the
// CLI from its environment (harness/cli/environment.h) and handed to whoever needs it: nothing
// below harness/cli/ reads the environment (scripts/check-layers fails if something does).
//
// Nothing is baked in: everything is found relative to the running binary, so an installed copy
// works wherever its prefix is, and a build tree works the same way (the build puts
// share/reapcheck/ beside bin/, pointing at the source tree's scenarios/ and fixtures/).
//
//   PREFIX/bin/reapcheck
//   PREFIX/libexec/reapcheck/reapcheck-bystander, reapcheck-c-member
//   PREFIX/share/reapcheck/scenarios/ (expectations/ inside), PREFIX/share/reapcheck/fixtures/
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace reapcheck {

struct Layout {
  std::filesystem::path bin;        // the running binary's folder: PREFIX/bin, or the build's bin/
  std::filesystem::path prefix;     // PREFIX, or the build tree: the folder above `bin`
  std::filesystem::path scenarios;  // PREFIX/share/reapcheck/scenarios unless told otherwise
  std::filesystem::path fixtures;   // PREFIX/share/reapcheck/fixtures unless told otherwise
  // The helper programs' folder when told; empty: beside the binary (a build tree), else
  // PREFIX/libexec/reapcheck (an installed copy).
  std::filesystem::path libexec;
  // The only host paths a sandboxed case may write, for an exec: reaper that must leave
  // something on the host (a test's marker file): canonical directories.
  std::vector<std::filesystem::path> shared;
  std::string search_path = "/usr/bin:/bin";  // where programs are looked up, as PATH
  std::filesystem::path temp = "/tmp";        // where scratch directories go, as TMPDIR

  // The layout of the running binary, as installed: nothing overridden.
  static Layout of_running_binary();

  // A helper program: libexec/NAME when libexec is set, else beside the binary, else
  // PREFIX/libexec/reapcheck/NAME.
  std::string helper(const std::string& name) const;

  // What a sandboxed case must still reach of the host, read-only: PREFIX (or the build tree),
  // the fixtures and the folder holding them (in a build tree, the checkout), the scenarios,
  // libexec and the working directory. Canonical; the ones that do not exist are left out.
  std::vector<std::filesystem::path> harness_paths() const;

  // The absolute path of `program` found in search_path; empty when absent.
  std::string find_program(const std::string& program) const;
};

// The directories of a colon-separated list (REAPCHECK_SHARE), canonical; ones that are not
// directories are left out.
std::vector<std::filesystem::path> existing_directories(const std::string& list);

// The absolute path of `program` found in the colon-separated `search_path`; `program` itself
// when it holds a slash and is executable; empty when absent.
std::string find_in_path(const std::string& program, const std::string& search_path);

}  // namespace reapcheck
