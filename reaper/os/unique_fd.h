// An owned file descriptor: closed exactly once, movable, never copied.
#pragma once

#include <unistd.h>

#include <utility>

namespace reaper {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) reset(std::exchange(other.fd_, -1));
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  int release() { return std::exchange(fd_, -1); }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

// A pipe whose ends close themselves. O_CLOEXEC unless the caller asks otherwise.
struct Pipe {
  UniqueFd read;
  UniqueFd write;
};
Pipe make_pipe(bool cloexec = true);

// A close-on-exec duplicate of `fd`; throws naming the failure.
UniqueFd dup_fd(int fd);

}  // namespace reaper
