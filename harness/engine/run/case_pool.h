// Cases run in parallel, each worker a forked process of its own.
//
// Processes rather than threads: a sandbox is created with a raw clone(), which in a
// multithreaded process could inherit a lock another thread holds. A forked worker is
// single-threaded, like the sequential runner, and a crash in one case ends only its worker.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "harness/engine/case.h"
#include "harness/model/result.h"

namespace reapcheck {

// Called in this process with each finished job's index and result; returns whether to go on.
using CaseDone = std::function<bool(size_t, CaseResult)>;

// Runs every job on `workers` worker processes (one worker: this process, in plan order),
// calling `done(index, result)` in this process as each one finishes, in whatever order they
// finish; each result is judged here, from the observation its worker sent. On an interrupt (see
// interrupt.h) the workers end their cases, what they finished is still reported, and then
// Interrupted is thrown. When `done` returns false, the cases in progress are ended as an
// interrupt ends them (one that finishes meanwhile is still reported), no other starts, and the
// call returns.
void run_case_pool(const std::vector<CaseJob>& jobs, const CaseOptions& options, int workers,
                   const CaseDone& done);

}  // namespace reapcheck
