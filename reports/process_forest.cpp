#include "reports/process_forest.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "reports/evidence.h"

namespace reapcheck {
namespace {

void draw(const std::vector<ProcessRecord>& all, const ProcessRecord& p, int depth,
          const std::string& indent, size_t width, std::string& out) {
  const std::string head = fmt::format("{}{:<6} pgid {:<6} sid {:<6} {} {:<12} ",
                                       std::string(static_cast<size_t>(depth) * 2, ' '), p.pid,
                                       p.pgid, p.sid, p.state, p.role);
  if (width == 0) {
    out += indent + head + p.command_line() + "\n";
  } else {
    const size_t room = width > head.size() + 20 ? width - head.size() : 20;
    out += indent + cut(head + fitted_argv(p.argv, room), width) + "\n";
  }
  for (const auto& c : all) {
    if (c.ppid == p.pid && c.pid != p.pid) draw(all, c, depth + 1, indent, width, out);
  }
}

}  // namespace

std::string process_forest(const std::vector<ProcessRecord>& processes, const std::string& indent,
                           size_t width) {
  std::set<pid_t> pids;
  for (const auto& p : processes) pids.insert(p.pid);
  std::string out;
  for (const auto& p : processes) {
    if (pids.count(p.ppid) == 0) draw(processes, p, 0, indent, width, out);  // a root of the forest
  }
  return out;
}

}  // namespace reapcheck
