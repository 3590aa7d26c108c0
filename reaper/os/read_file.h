// A whole small file (a /proc or cgroupfs entry, a log) as a string; empty when it cannot be read.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace reaper {

inline std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace reaper
