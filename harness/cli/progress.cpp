#include "harness/cli/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <string>

#include "harness/model/reaper_name.h"

namespace reapcheck {

ProgressLines::ProgressLines(bool quiet, bool numbered)
    : quiet_(quiet),
      numbered_(numbered),
      live_(::isatty(STDERR_FILENO) != 0),
      started_(std::chrono::steady_clock::now()) {}

void ProgressLines::operator()(const CaseResult& c, int done, int total) const {
  if (quiet_) return;
  const std::string mark = c.as_expected() ? "ok" : "UNEXPECTED";
  const std::string line =
      fmt::format("[{}/{}] {} × {}{}: {} ({})", done, total, c.scenario, shown_reaper(c.reaper),
                  numbered_ ? fmt::format(" #{}", c.run) : "", to_string(c.verdict), mark);
  if (!live_) {
    fmt::print(stderr, "{} {:.0f} ms\n", line, c.case_ms);
    return;
  }
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  const double left = elapsed / done * (total - done);
  if (!c.as_expected()) fmt::print(stderr, "\r\x1b[K{}\n", line);  // surprises stay on screen
  fmt::print(stderr, "\r\x1b[K[{}/{}] {:.0f}s elapsed, ~{:.0f}s left — last: {} × {}: {}", done,
             total, elapsed, left, c.scenario, shown_reaper(c.reaper), to_string(c.verdict));
  if (done == total) fmt::print(stderr, "\r\x1b[K");
}

void ProgressLines::make_room() const {
  if (live_ && !quiet_) fmt::print(stderr, "\r\x1b[K");
}

}  // namespace reapcheck
