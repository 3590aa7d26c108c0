// Factories of the built-in strategies, one per file; registry.cpp names them.
#pragma once

#include <memory>

#include "reaper.h"

namespace reaper {

std::unique_ptr<Reaper> make_pgroup();
std::unique_ptr<Reaper> make_ps_walk();
std::unique_ptr<Reaper> make_proc_pidfd();
std::unique_ptr<Reaper> make_cmdline();
std::unique_ptr<Reaper> make_subreaper();
std::unique_ptr<Reaper> make_cgroup();
std::unique_ptr<Reaper> make_pidns();

}  // namespace reaper
