// What a case sees of the host's file systems. The warden (the sandbox's set-up stage) builds it in
// a mount namespace of its own while it still holds the privilege, and the case lives in that
// namespace without holding any privilege over it (its user namespace is a child of the one that
// owns the mounts): it can mount and unmount nothing here, and in any mount namespace it makes of
// its own the kernel locks every mount it copies, so it can neither unmount one to see what it
// covers nor make a read-only one writable.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "harness/sandbox/sandbox_ids.h"

namespace reapcheck {

struct HostView {
  std::filesystem::path scratch;               // a private tmpfs owned by the sandbox's root
  std::vector<std::filesystem::path> visible;  // host paths that stay reachable, read-only
  std::vector<std::filesystem::path> shared;   // host directories that stay reachable and writable
  // Project folders the case sees at their own paths through a copy-on-write layer
  // (project_view.h): writable inside, never written on the host.
  std::vector<std::filesystem::path> projects;
  std::string cgroup;  // a host cgroup shown in place of the whole hierarchy; empty: none
  SandboxIds ids;      // who owns the scratch tmpfs
  // The size of each tmpfs the case may write (the private folders, the scratch), in bytes; 0:
  // the kernel's default, half the host's memory. The case's memory bound (memory_bound.h).
  std::uint64_t tmpfs_size = 0;
};

// Why no case's view of the host can be built here, or empty: `root` lets only its owner in.
// The case runs as an id of its own, so it could reach no file, and nothing can cover the root
// itself the way a closed folder further down is covered. Checked before the first case, and by
// prepare_host_view().
std::string host_view_refusal(const std::filesystem::path& root = "/");

// The topmost folder on the way to the folder `path` (itself included) that the case may not
// enter, or empty. What lies below it is hidden from the case unless put back.
std::filesystem::path closed_folder(const std::filesystem::path& path);

// What to put back (HostView::visible) so that the case finds the programs of `search_path` (a
// PATH) as the user does: for an entry under a folder the case may not enter (a version
// manager's shims in a 0700 home, /root/.pyenv/shims), the folder just below that one on the way
// to it (/root/.pyenv: the shims and what they run). Entries the case reaches already need none.
std::vector<std::filesystem::path> path_put_back(const std::string& search_path);

// For a folder of PATH: the first folder on the way to it that the case may not enter even once
// path_put_back() has put back what it can (a 0700 ~/.pyenv itself), or empty.
std::filesystem::path closed_after_put_back(const std::filesystem::path& dir);

// In the calling process's (fresh, unshared) mount namespace, one checked step after another:
// private propagation; the host's /tmp, /var/tmp, /dev/shm and /run replaced by empty tmpfs (no
// host file or Unix socket under them stays reachable) with `visible` and `shared` put back; the
// scratch tmpfs; the projects' copy-on-write layers; the cgroup; every Unix socket bound to a
// path on the host that is still in view covered (host_sockets.h); everything read-only and
// set-uid-free but those. Throws naming the step that failed. The case's own /proc comes later
// (case_proc.h): its PID namespace does not exist yet.
void prepare_host_view(const HostView& view);

}  // namespace reapcheck
