// The process table in one read(): a BPF task iterator, used by ProcTable::read for the stat
// fields when it can be. Opening /proc/<pid>/stat costs this kernel several microseconds per
// process before anything is read; the iterator walks the task list in the kernel instead.
//
// It needs root (CAP_BPF and CAP_PERFMON), a kernel with BTF, and a build with clang, bpftool
// and libbpf (REAPCHECK_TASK_ITER). Where any is missing, /proc is read as before.
#pragma once

#include <optional>
#include <vector>

#include "reaper/os/proc_table.h"

namespace reaper {

// Loads the iterator on first use; true when it works here. Loading costs milliseconds (libbpf
// reads the kernel's BTF), so a program that forks calls this first: children inherit it.
bool task_iter_available();

// Every process of the caller's PID namespace (zombies included, threads not), sorted by pid;
// empty when the iterator is unavailable.
std::optional<std::vector<ProcInfo>> read_task_iter();

}  // namespace reaper
