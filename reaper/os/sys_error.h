// Errors from system calls carry the call and its subject, so a message says what failed on what.
#pragma once

#include <cerrno>
#include <string>
#include <system_error>

namespace reaper {

[[noreturn]] inline void throw_sys(const std::string& what, int err = errno) {
  throw std::system_error(err, std::generic_category(), what);
}

}  // namespace reaper
