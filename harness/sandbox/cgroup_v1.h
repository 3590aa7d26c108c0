// cgroup v1 hierarchies, where a hybrid layout (Debian 12 with systemd's legacy hierarchy) keeps
// a controller: where one is mounted and which group this process is in there. The v1 groups a
// case is bounded by (pids_group.h, memory_group.h) are made with these.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/sandbox/host_item.h"
#include "harness/sandbox/owned_dir.h"

namespace reapcheck {

// Where the v1 hierarchy of `controller` ("pids", "memory") is mounted; empty when it is not.
std::string v1_mount(std::string_view controller);

// This process's group in the v1 hierarchy of `controller` ("/a/b"; "N:controller:/a/b" in
// /proc/self/cgroup); empty when it is in none.
std::string own_v1_group(std::string_view controller);

// A new group `prefix`<run>-XXXXXX in `parent` (owned_dir.h), held; empty when `parent` is
// (no v1 hierarchy of ours) or the group cannot be made there (not ours to write: no v1 bound).
std::optional<OwnedDir> new_v1_group(const std::string& parent, std::string_view prefix);

// The groups `prefix`* in `parent` (owned_dir.h) that killed runs left, removed; how many. None
// when `parent` is empty (no v1 hierarchy of ours).
int reclaim_v1_groups(const std::string& parent, std::string_view prefix);
// Every group `prefix`* in `parent`, held or left: what reclaim_v1_groups() looks at.
std::vector<HostItem> list_v1_groups(const std::string& parent, std::string_view prefix);

}  // namespace reapcheck
