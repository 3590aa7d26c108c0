// A /proc of the test's own making, for what reads /proc: stat lines as the kernel writes them,
// and a folder of processes (pid, parents, ids, argv).
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/unit/temp_dir.h"

namespace reaper {

// A real stat line's tail after the comm: state, ppid, pgrp, session, then fields 7..21, then
// starttime (22) and more.
inline std::string stat_line(const std::string& pid, const std::string& comm,
                             const std::string& state, int ppid, int pgid, int sid,
                             unsigned long long start) {
  return pid + " (" + comm + ") " + state + " " + std::to_string(ppid) + " " +
         std::to_string(pgid) + " " + std::to_string(sid) +
         " 34816 1234 4194560 120 0 0 0 1 2 0 0 20 0 1 0 " + std::to_string(start) +
         " 8192 150 18446744073709551615\n";
}

class FakeProc : public reapcheck::testing::TempDirTest {
 protected:
  void add(int pid, int ppid, int pgid, int sid, const std::string& comm,
           const std::string& cmdline) {
    auto dir = dir_ / std::to_string(pid);
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "stat") << stat_line(std::to_string(pid), comm, "S", ppid, pgid, sid,
                                             100u + pid);
    std::ofstream(dir / "cmdline") << cmdline;
    std::filesystem::create_symlink("/work/tree", dir / "cwd");
  }
};

}  // namespace reaper
