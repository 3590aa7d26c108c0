#include "harness/support/line_reader.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>

#include "reaper/os/deadline.h"
#include "reaper/os/sys_error.h"

namespace reapcheck {

LineReader::Result LineReader::next(std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    if (auto nl = buffer_.find('\n'); nl != std::string::npos) {
      Result r{Status::line, buffer_.substr(0, nl)};
      buffer_.erase(0, nl + 1);
      return r;
    }
    auto left = reaper::time_left(deadline);
    pollfd p{fd_, POLLIN, 0};
    int rc = ::poll(&p, 1, static_cast<int>(left.count()));
    if (rc < 0) {
      if (errno == EINTR) continue;
      reaper::throw_sys("poll");
    }
    if (rc == 0) return {Status::timeout, {}};
    char buf[4096];
    ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      reaper::throw_sys("read");
    }
    if (n == 0) return {Status::eof, std::move(buffer_)};
    buffer_.append(buf, static_cast<size_t>(n));
  }
}

}  // namespace reapcheck
