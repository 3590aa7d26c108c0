// Who the sandbox's root is on the host. As root, a case must not run as real root: its user
// namespace maps root to kHostId, a uid and gid no account has (above systemd's container and
// dynamic ranges), so every host file, cgroup and socket is someone else's to it. Rootless, root
// maps to the invoking user, as it always has.
#pragma once

#include <sys/types.h>

namespace reapcheck {

inline constexpr uid_t kSandboxHostId = 0x70000000;  // 1879048192

// The ids the sandbox's root has, as the warden (the set-up stage, outside the case's user
// namespace) names them: kSandboxHostId as root; 0 rootless, where the warden's own namespace
// already maps 0 to the invoking user.
struct SandboxIds {
  uid_t uid;
  gid_t gid;
};

// Maps root of `pid`'s fresh user namespace to `ids`, through the warden's /proc (`proc_fd`, a
// directory fd: the warden's /proc is covered by then).
void map_root(int proc_fd, pid_t pid, SandboxIds ids);

// Makes the calling process root of its user namespace in fact, not only in capabilities: until
// it does, its host uid (0 as root) still owns files outside the namespace.
void become_namespace_root();

}  // namespace reapcheck
