// The sandbox: a function run as PID 1 of fresh user, PID, mount, network and cgroup namespaces.
// As root, the user namespace maps its root to an unprivileged host id (sandbox_ids.h); rootless,
// to the invoking user. Nothing inside can see or signal a host process, reach a host Unix
// socket, or write the host's files or cgroups outside what it is handed (host_view.h,
// case_cgroup.h); when PID 1 returns — or the harness dies — the kernel kills everything left
// inside. warden.h says how it is built.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness/sandbox/owned_dir.h"
#include "harness/sandbox/pid_one.h"

namespace reapcheck {

struct SandboxOutcome {
  // unavailable: this machine refused the namespaces (no privilege, user namespaces disabled).
  enum class Status { finished, timed_out, crashed, unavailable } status = Status::crashed;
  std::string output;  // what the body returned (finished), or why not
};

struct SandboxOptions {
  std::chrono::milliseconds deadline{60000};
  // A host directory that becomes a private tmpfs inside (at scratch_inside()); the body's
  // scratch space. It stays empty on the host and is removed afterwards.
  std::filesystem::path scratch;
  // Host paths the case reads (the build, the fixtures), kept visible read-only where a private
  // tmpfs would hide them (a checkout under /tmp).
  std::vector<std::filesystem::path> visible;
  // Host directories the case may write (Layout::shared): the only writable host paths inside.
  std::vector<std::filesystem::path> shared;
  // The run's cgroup area: the case gets a delegated group of its own there. Empty: none.
  std::string cgroup_area;
  // Trace the signals the kernel generates for the sandbox's processes and hand them to the
  // body (kernel_signal_trace.h), where the machine allows it.
  bool kernel_signals = true;
  // Take and leave a kept tracing instance rather than make and remove one (kernel_signal_trace.h).
  bool keep_trace = false;
  // Project folders the case sees through a copy-on-write layer (project_view.h).
  std::vector<std::filesystem::path> projects;
  // The most memory the case may use, its tmpfs mounts' contents included, in bytes
  // (memory_bound.h); 0: the default, a quarter of the host's. A case the OOM killer reached
  // ends crashed, with why.
  std::uint64_t memory_max = 0;
};

// Where the case sees its scratch (SandboxOptions::scratch, a host folder): at the same path when
// that is made of the POSIX portable filename characters alone (letters, digits, '.', '_', '-'
// and '/'), else at /tmp/reapcheck-scratch in the case's private /tmp. What a case runs reads
// its worktree's path in many ways: no PATH entry can hold a ':' (npm adds node_modules/.bin),
// node runs no script whose path is no UTF-8, vite's config loader takes a '%' for a URL
// escape, a shell command a fixture builds may leave a quote of it unbalanced. Empty for none.
std::filesystem::path scratch_inside(const std::filesystem::path& scratch);

// Runs `body` inside the sandbox and returns its string. `body` runs in a forked child: it
// must not expect its side effects to reach the caller, except through the returned string.
// Throws Interrupted (after killing the sandbox) if a watched signal arrives.
SandboxOutcome run_in_sandbox(const std::function<std::string()>& body,
                              const SandboxOptions& options);

// A sandbox made ahead of its body's run. Making one — the namespaces, the mounts, the case's
// cgroup — is most of what a sandbox costs; made while the last case still runs, that cost
// leaves the next case's time. PID 1 waits in its fresh namespaces for the request it hands
// `body`: each sandbox runs one body once, and nothing of it outlives it.
class Sandbox {
 public:
  // Makes the sandbox (`options.deadline` bounds only its making). PID 1, forked from this
  // process now, sees its memory as it is now: `body` must reach only what lives on unchanged.
  // `running`: a sandbox whose case runs meanwhile (made from its run's `meanwhile`), whose
  // kernel signal trace is kept flowing while this one is made.
  Sandbox(const SandboxBody& body, const SandboxOptions& options, Sandbox* running = nullptr);
  ~Sandbox();  // kills what is left inside, removes its cgroup
  Sandbox(const Sandbox&) = delete;
  Sandbox& operator=(const Sandbox&) = delete;

  // Hands PID 1 `request`, then runs `meanwhile` (the next case's sandbox is made there), then
  // returns what the body returned, within `deadline`. Call once. Throws Interrupted (after
  // killing the sandbox) if a watched signal arrives.
  SandboxOutcome run(const std::string& request, std::chrono::milliseconds deadline,
                     const std::function<void()>& meanwhile = {});

 private:
  struct Parts;
  std::unique_ptr<Parts> parts_;
};

// A fresh scratch directory, TEMP/reapcheck-<pid>-XXXXXX (TEMP: the layout's, as TMPDIR says),
// removed with its contents on destruction; one that a killed run left behind is removed by the
// next run.
class ScratchDir {
 public:
  explicit ScratchDir(const std::filesystem::path& temp);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return dir_.path(); }

  // Removes the scratch directories of runs that died without removing theirs; returns how many.
  static int reclaim_abandoned(const std::filesystem::path& temp);
  // Every run's scratch directory in `temp`, held or left: what reclaim_abandoned looks at.
  static std::vector<HostItem> list(const std::filesystem::path& temp);

 private:
  OwnedDir dir_;
};

}  // namespace reapcheck
