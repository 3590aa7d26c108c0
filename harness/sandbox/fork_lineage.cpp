#include "harness/sandbox/fork_lineage.h"

#include <fmt/format.h>

#include <sstream>
#include <vector>

#include "reaper/os/proc_table.h"

namespace reapcheck {
namespace {

// A fork chain is short; the bound only stops a loop on ids reused within the case.
constexpr int kMaxHops = 64;

}  // namespace

std::string birth_line(const Birth& b) {
  return fmt::format("F {} {}\n", b.parent, b.child);
}

std::optional<Birth> parse_birth_line(const std::string& line) {
  std::istringstream in(line);
  std::string tag;
  Birth b;
  if (!(in >> tag >> b.parent >> b.child) || tag != "F" || b.parent <= 0 || b.child <= 0) {
    return std::nullopt;
  }
  return b;
}

void ForkLineage::clear() {
  process_.clear();
  parent_.clear();
}

pid_t ForkLineage::process_of(pid_t tid) {
  if (auto it = process_.find(tid); it != process_.end()) return it->second;
  // NStgid: the thread group's id in each namespace, outermost first.
  std::istringstream ids(reaper::status_field(tid, "NStgid"));
  std::vector<pid_t> levels;
  for (pid_t id = 0; ids >> id;) levels.push_back(id);
  const pid_t ours =
      level_ < static_cast<int>(levels.size()) ? levels[static_cast<size_t>(level_)] : 0;
  if (ours != 0) process_[tid] = ours;
  return ours;
}

std::optional<Birth> ForkLineage::born(const Fork& fork) {
  parent_[fork.child] = fork.parent;
  process_.erase(fork.child);  // a reused id: what it named before is gone
  const pid_t child = process_of(fork.child);
  if (child == 0) return std::nullopt;
  pid_t up = fork.parent;
  pid_t parent = process_of(up);
  for (int hop = 0; parent == 0 && hop < kMaxHops; ++hop) {
    const auto it = parent_.find(up);
    if (it == parent_.end()) return std::nullopt;
    up = it->second;
    parent = process_of(up);
  }
  if (parent == 0 || parent == child) return std::nullopt;  // a thread of the same process
  return Birth{parent, child};
}

}  // namespace reapcheck
