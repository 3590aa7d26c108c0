#include "reaper/tree/tree_walk.h"

#include <deque>

namespace reaper {

std::vector<pid_t> walk_descendants(const ChildMap& children, pid_t root) {
  std::vector<pid_t> out;
  std::deque<pid_t> queue{root};
  while (!queue.empty()) {
    auto it = children.find(queue.front());
    queue.pop_front();
    if (it == children.end()) continue;
    for (pid_t c : it->second) {
      out.push_back(c);
      queue.push_back(c);
    }
  }
  return out;
}

}  // namespace reaper
