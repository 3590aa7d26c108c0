// A project's folder as a case sees it: at its own path, writable, and never written. The warden
// lays an overlay over it whose lower layer is a read-only clone of the host's folder and whose
// upper layer lives in the case's scratch tmpfs, so a dev server's caches (node_modules/.vite,
// __pycache__) land in the scratch and vanish with it. As root the lower layer is also idmapped:
// the folder's owner appears as the sandbox's root, which may then write where the owner could;
// other owners' files stay theirs.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "harness/sandbox/sandbox_ids.h"
#include "reaper/os/unique_fd.h"

namespace reapcheck {

// Why `dir` cannot be a project folder, or empty: it lies on one of the kernel's own file systems
// (/proc, /sys, /dev, a cgroup hierarchy), which no copy-on-write layer can be laid over. Checked
// before the first case, with the command's other checks.
std::string project_refusal(const std::filesystem::path& dir);

// A project folder taken from the host before anything covers it.
struct ProjectLayer {
  std::filesystem::path dir;
  reaper::UniqueFd lower;  // a detached, read-only (and, as root, idmapped) clone of `dir`
};

// In the warden's mount namespace, while the host's folders are all still in view.
ProjectLayer take_project(const std::filesystem::path& dir, SandboxIds ids);

// Lays the overlay on the project's own path, its layers in `layers` (a folder of the scratch
// tmpfs). `rootless`: the warden owns no more than its user namespace (overlayfs then keeps its
// metadata in user.* attributes).
void lay_project(const ProjectLayer& project, const std::filesystem::path& layers, SandboxIds ids,
                 bool rootless);

}  // namespace reapcheck
