// What /proc/PID/cmdline and /proc/PID/environ show of a process that reapcheck forks and never
// execs (the sandbox's warden, the case's PID 1, the reaper host).
#pragma once

#include <string_view>

namespace reapcheck {

// Replaces this process's command line with `title` and empties its environment as /proc shows
// them (its name in /proc/PID/comm stays reapcheck's). A fork carries
// reapcheck's own argv (`--dir /home/you/my-app`, `--scenarios /path/.reapcheck`) and
// environment (PWD), which a reaper that finds the tree by path or by an environment mark would
// take for a member and kill; the processes a case's reaper can see must carry neither. The
// environment itself is kept, copied to the heap, so getenv() and exec*() with `environ` still
// see it. Throws (with what failed) if /proc/self/stat cannot be read.
void set_process_title(std::string_view title);

}  // namespace reapcheck
