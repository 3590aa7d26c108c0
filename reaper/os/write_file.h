// Writes a small control file (cgroupfs, /proc/<pid>/uid_map): the whole text, or an exception
// naming the path.
#pragma once

#include <fstream>
#include <string>
#include <string_view>

#include "reaper/os/sys_error.h"

namespace reaper {

inline void write_file(const std::string& path, std::string_view text) {
  std::ofstream out(path);
  out << text;
  out.close();
  if (!out) throw_sys("write " + path);
}

}  // namespace reaper
