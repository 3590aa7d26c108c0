// Cases run one after another by one process: a case pool's worker, a sequential run, the
// bench's loops. While a case runs, the series makes the sandbox of the case after it (sandbox.h:
// the namespaces, the mounts, the case's cgroup), so that cost leaves the cases' time. Each case
// still gets a sandbox of its own, fresh: what the series keeps is only the next one, unused.
#pragma once

#include <cstddef>
#include <memory>
#include <span>

#include "harness/engine/case.h"
#include "harness/sandbox/pids_group.h"

namespace reapcheck {

class Sandbox;

class CaseSeries {
 public:
  // `jobs` must outlive the series, unchanged: a sandbox made ahead, forked from this process
  // while an earlier case ran, finds its job there by index.
  CaseSeries(std::span<const CaseJob> jobs, CaseOptions options);
  ~CaseSeries();
  CaseSeries(const CaseSeries&) = delete;
  CaseSeries& operator=(const CaseSeries&) = delete;

  // What jobs[index] observed, with its case_ms (complete_case() judges it); meanwhile, unless
  // `last`, makes the next case's sandbox.
  CaseObservation run(size_t index, bool last = false);

 private:
  struct Ahead;  // a sandbox made for whichever case comes next, and its scratch directory
  // `running`: the sandbox whose case runs while this one is made, if any.
  std::unique_ptr<Ahead> make_ahead(Sandbox* running = nullptr) const;
  // The case in the sandbox made ahead (or one made now); meanwhile, unless `last`, the next.
  CaseObservation observe(size_t index, const Scenario& scenario, const CaseOptions& options,
                          bool last);

  std::span<const CaseJob> jobs_;
  CaseOptions options_;
  PidsBound pids_;  // one v1 pids group for all its cases (pids_group.h)
  std::unique_ptr<Ahead> ahead_;
};

}  // namespace reapcheck
