#include "harness/engine/run/dispatch_order.h"

#include <algorithm>
#include <numeric>

namespace reapcheck {
namespace {

// A rough weight of a case, in members: the tree's size, for which forking and the kernel's
// teardown grow, and a command agent's node programs (npm, vite), each of which takes about as
// long to start as a hundred perl members take to fork.
int weight(const CaseJob& job) {
  if (job.scenario == nullptr) return 0;
  return job.scenario->member_count() + (job.scenario->agent ? 100 : 0);
}

}  // namespace

std::vector<size_t> dispatch_order(const std::vector<CaseJob>& jobs) {
  std::vector<size_t> order(jobs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return weight(jobs[a]) > weight(jobs[b]); });
  return order;
}

}  // namespace reapcheck
