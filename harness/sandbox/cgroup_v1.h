// cgroup v1 hierarchies, where a hybrid layout (Debian 12 with systemd's legacy hierarchy) keeps
// a controller: where one is mounted and which group this process is in there. The v1 groups a
// case is bounded by (pids_group.h, memory_group.h) are made with these.
#pragma once

#include <string>
#include <string_view>

namespace reapcheck {

// Where the v1 hierarchy of `controller` ("pids", "memory") is mounted; empty when it is not.
std::string v1_mount(std::string_view controller);

// This process's group in the v1 hierarchy of `controller` ("/a/b"; "N:controller:/a/b" in
// /proc/self/cgroup); empty when it is in none.
std::string own_v1_group(std::string_view controller);

}  // namespace reapcheck
