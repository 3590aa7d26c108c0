// A scenario: the tree a fixture builds, and the weaknesses of built-in reapers it exposes.
#pragma once

#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "verdict.h"

namespace reapcheck {

// One member of the tree, as the fixture builds it (fixtures/perl/tree.pl reads the same keys).
struct TreeNode {
  std::string role;
  bool setsid = false;
  bool setpgid = false;
  bool reap = true;                  // reaps its exited children, as shells and node do
  std::vector<std::string> ignore;   // signal names without SIG, e.g. "TERM"
  std::vector<std::string> exit_on;  // exits at once on these
  std::vector<std::string> exec;     // replaces itself with this program once started
  std::vector<TreeNode> children;
};

struct Expectation {
  Verdict verdict = Verdict::pass;
  std::string reason;
};

struct Scenario {
  std::string id;  // the file's stem
  std::filesystem::path file;
  std::string description;
  std::vector<std::string> tags;
  TreeNode tree;
  std::map<std::string, Expectation, std::less<>> known;  // reaper id → declared weakness

  // `pass` unless the file declares a weakness of this reaper.
  Expectation expectation_for(std::string_view reaper) const;
  int member_count() const;
};

// A malformed scenario file; the message starts with file:line:col.
class ScenarioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

Scenario load_scenario(const std::filesystem::path& file);
Scenario parse_scenario(std::string_view text, const std::filesystem::path& file);

// Every *.toml in `dir`, sorted by id. Throws ScenarioError on the first bad file.
std::vector<Scenario> load_scenarios(const std::filesystem::path& dir);

}  // namespace reapcheck
