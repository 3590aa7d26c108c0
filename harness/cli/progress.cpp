#include "harness/cli/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "harness/model/reaper_name.h"
#include "harness/model/text.h"

namespace reapcheck {

namespace {

// ", ~1m20s left", or "" while nothing is known of the cases' times.
std::string time_left_text(const TimeLeft& estimate) {
  const std::optional<double> left = estimate.seconds();
  if (!left) return "";
  const long seconds = std::lround(*left);
  if (seconds < 60) return fmt::format(", ~{}s left", seconds);
  return fmt::format(", ~{}m{:02}s left", seconds / 60, seconds % 60);
}

std::shared_ptr<TimeLeft> estimate_of(const MatrixPlan& plan, std::map<CellKey, double> last) {
  std::vector<CellKey> cells;
  for (const auto& job : matrix_jobs(plan)) {
    cells.emplace_back(job.scenario->id, printable(job.reaper));
  }
  const int workers = std::min(plan.jobs, static_cast<int>(cells.size()));
  return std::make_shared<TimeLeft>(cells, workers, std::move(last));
}

}  // namespace

ProgressLines::ProgressLines(bool quiet, bool numbered, const MatrixPlan& plan,
                             std::map<CellKey, double> last_times)
    : quiet_(quiet),
      numbered_(numbered),
      live_(::isatty(STDERR_FILENO) != 0),
      started_(std::chrono::steady_clock::now()),
      estimate_(estimate_of(plan, std::move(last_times))) {}

void ProgressLines::operator()(const CaseResult& c, int done, int total) const {
  estimate_->finished({c.scenario, c.reaper}, c.case_ms);
  if (quiet_) return;
  const std::string mark = c.as_expected() ? "ok" : "UNEXPECTED";
  const std::string line =
      fmt::format("[{}/{}] {} × {}{}: {} ({})", done, total, c.scenario, shown_reaper(c.reaper),
                  numbered_ ? fmt::format(" #{}", c.run) : "", to_string(c.verdict), mark);
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  const std::string left = done < total ? time_left_text(*estimate_) : "";
  if (!live_) {
    fmt::print(stderr, "{} {:.0f} ms; {:.0f}s elapsed{}\n", line, c.case_ms, elapsed, left);
    return;
  }
  if (!c.as_expected()) fmt::print(stderr, "\r\x1b[K{}\n", line);  // surprises stay on screen
  fmt::print(stderr, "\r\x1b[K[{}/{}] {:.0f}s elapsed{} — last: {} × {}: {}", done, total, elapsed,
             left, c.scenario, shown_reaper(c.reaper), to_string(c.verdict));
  if (done == total) fmt::print(stderr, "\r\x1b[K");
}

void ProgressLines::make_room() const {
  if (live_ && !quiet_) fmt::print(stderr, "\r\x1b[K");
}

}  // namespace reapcheck
