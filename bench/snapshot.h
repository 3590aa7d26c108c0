// What a process-table snapshot costs: reaper::ProcTable (the BPF task iterator where it is
// available, and /proc's files) against `ps -ax -o pid,ppid` (what the seed reaper runs), and
// the kernel's floor for any snapshot that opens a file per process.
#pragma once

#include <cstddef>
#include <filesystem>

#include "bench/result.h"

namespace reapcheck {

// Measures inside a sandbox of its own (its scratch in `temp`), where /proc holds exactly
// `processes` processes.
SnapshotCost measure_snapshot(int processes, int iterations, const std::filesystem::path& temp);

// One `ps -ax -o pid,ppid`, spawned directly (no shell) and parsed; returns the rows read.
size_t ps_snapshot();

// Lists /proc and opens and closes every <pid>/stat; returns how many it opened.
size_t open_floor_snapshot();

}  // namespace reapcheck
