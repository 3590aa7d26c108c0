#include "harness/sandbox/memory_bound.h"

#include <fmt/format.h>
#include <unistd.h>

#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/sandbox/cgroup_v1.h"
#include "reaper/os/read_file.h"
#include "reaper/os/write_file.h"

namespace reapcheck {
namespace {

constexpr std::string_view kPrefix = "reapcheck-memory-";
constexpr std::uint64_t kMiB = std::uint64_t{1024} * 1024;
constexpr std::uint64_t kGiB = 1024 * kMiB;
// Where /proc/meminfo cannot be read: 1 GiB, a quarter of a small machine's.
constexpr std::uint64_t kFallback = kGiB;

// The folder the groups are made in: this process's group in the v1 memory hierarchy. Empty where
// there is none of ours.
std::string parent_group() {
  const std::string mount = v1_mount("memory");
  if (mount.empty() || ::geteuid() != 0) return {};
  return mount + own_v1_group("memory");
}

}  // namespace

std::uint64_t default_memory_max() {
  std::ifstream meminfo("/proc/meminfo");
  for (std::string key; meminfo >> key;) {
    std::uint64_t kib = 0;
    meminfo >> kib;
    if (key == "MemTotal:" && kib > 0) return kib * 1024 / 4;
    meminfo.ignore(256, '\n');
  }
  return kFallback;
}

std::string memory_text(std::uint64_t bytes) {
  if (bytes >= kGiB && bytes % kGiB == 0) return fmt::format("{} GiB", bytes / kGiB);
  if (bytes >= kGiB) return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / kGiB);
  if (bytes >= kMiB && bytes % kMiB == 0) return fmt::format("{} MiB", bytes / kMiB);
  if (bytes >= kMiB) return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / kMiB);
  return fmt::format("{} bytes", bytes);
}

std::string over_memory_bound(std::uint64_t bytes, int kills) {
  return fmt::format(
      "the case went over its memory bound, {} (run and reproduce --memory-max; what it keeps in "
      "its tmpfs mounts counts): the kernel's OOM killer ended {} of its process{}, so the case "
      "has no verdict",
      memory_text(bytes), kills, kills == 1 ? "" : "es");
}

int oom_kills_in(const std::string& events) {
  std::istringstream lines(events);
  for (std::string key; lines >> key;) {
    long count = 0;
    lines >> count;
    if (key == "oom_kill") return static_cast<int>(count);
  }
  return 0;
}

MemoryGroup::MemoryGroup(std::uint64_t limit) {
  dir_ = new_v1_group(parent_group(), kPrefix);
  if (!dir_) return;
  const std::string group = dir_->path().string();
  try {
    reaper::write_file(group + "/memory.limit_in_bytes", std::to_string(limit));
    // Memory and swap together no more than memory alone: none swapped out.
    if (std::filesystem::exists(group + "/memory.memsw.limit_in_bytes")) {
      reaper::write_file(group + "/memory.memsw.limit_in_bytes", std::to_string(limit));
    }
  } catch (const std::exception&) {
    ::rmdir(group.c_str());
    throw;
  }
  path_ = group;
}

MemoryGroup::~MemoryGroup() {
  if (!path_.empty()) ::rmdir(path_.c_str());
}

int MemoryGroup::oom_kills() const {
  return path_.empty() ? 0 : oom_kills_in(reaper::read_file(path_ + "/memory.oom_control"));
}

int MemoryGroup::reclaim_abandoned() {
  return reclaim_v1_groups(parent_group(), kPrefix);
}

std::vector<HostItem> MemoryGroup::list() {
  return list_v1_groups(parent_group(), kPrefix);
}

}  // namespace reapcheck
