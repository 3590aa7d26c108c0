// CPU time (user + system) in ms, from getrusage: RUSAGE_SELF (every thread of this process) or
// RUSAGE_CHILDREN (the children it has waited for).
#pragma once

#include <sys/resource.h>

namespace reapcheck {

inline double cpu_ms(int who) {
  rusage u{};
  ::getrusage(who, &u);
  auto ms = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_usec) / 1e3;
  };
  return ms(u.ru_utime) + ms(u.ru_stime);
}

}  // namespace reapcheck
