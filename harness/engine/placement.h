// Where a case's processes run, and the little that changes with it: in a sandbox of its own (a
// PID namespace the case runner is init of, torn down with everything in it), or on this machine
// (`reapcheck reproduce --no-sandbox`), beside every other process of the host.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <set>
#include <vector>

#include "harness/engine/case.h"
#include "harness/model/result.h"

namespace reapcheck {

class Placement {
 public:
  virtual ~Placement() = default;

  // Where the case's Unix sockets go: a socket's path holds at most 107 bytes, and the scratch
  // folder, in TMPDIR, may be longer (a CI runner's).
  virtual std::filesystem::path socket_dir(const std::filesystem::path& scratch) const = 0;

  // The sessions outside which nothing alive is of the tree, or null: everything the case's PID
  // namespace holds and the harness did not start is.
  virtual const std::set<pid_t>* tree_sessions(const std::set<pid_t>& sessions) const = 0;

  // Once the audit is done: what survived is ended, unless something else ends it (the sandbox's
  // teardown) or the user asked to keep it.
  virtual void end_survivors(const std::vector<ProcessRecord>& survivors,
                             const std::set<pid_t>& sessions) const = 0;
};

// The placement `options` ask for: CaseOptions::on_host, or a sandbox.
std::unique_ptr<Placement> placement_for(const CaseOptions& options);

}  // namespace reapcheck
