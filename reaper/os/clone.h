// fork() with namespace flags, and optionally straight into a cgroup v2 directory.
#pragma once

#include <sys/types.h>

#include <string>

namespace reaper {

// Returns as fork() does (the child's pid, 0 in the child, -1 with errno). `flags` are clone
// flags (CLONE_NEWPID, CLONE_NEWNS...); the child's exit signal is SIGCHLD. With a `cgroup` (a
// cgroup v2 directory) the child starts in that group (clone3's CLONE_INTO_CGROUP, Linux 5.7):
// it never runs outside it, and no migration takes place, which a write to cgroup.procs makes
// and which waits for an RCU grace period, 10-15 ms a move here. Where the kernel lacks it
// (ENOSYS, or E2BIG from Linux 5.3-5.6), `*joined` is false in the child as in the parent, and
// the child is started in the caller's group: it joins by itself.
pid_t clone_child(int flags, const std::string& cgroup = {}, bool* joined = nullptr);

// Starts a child that runs `child()` and then execs or _exits, sharing this process's memory
// until it does (CLONE_VM | CLONE_VFORK, as posix_spawn does); the calling thread waits until
// then. Nothing of the address space is copied, which is most of a fork's cost where copying
// page tables is slow (a PVM guest: 2.4 ms to fork a process of 1 MB, 4 ms of 16 MB; 0.04 ms
// this way). `flags` are further clone flags (CLONE_NEWPID).
//
// The child starts with every signal blocked and every handler back to default, so that no
// handler of this process runs on the shared memory; it sets the mask it wants. It shares the
// heap and the calling thread's errno, so it may only make system calls on what the caller
// prepared: no allocation, and nothing that changes the memory map (prctl(PR_SET_DUMPABLE) is
// the shared mm's too). Returns the child's pid, or -1 with errno. Built with AddressSanitizer,
// which cannot follow the child onto its own stack, the child is a copy instead (clone.cpp):
// kSpawnSharesMemory says which.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSpawnSharesMemory = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kSpawnSharesMemory = false;
#else
inline constexpr bool kSpawnSharesMemory = true;
#endif
#else
inline constexpr bool kSpawnSharesMemory = true;
#endif
template <class Child>
pid_t spawn_shared(int flags, Child& child) {
  return spawn_shared(
      flags, [](void* c) { (*static_cast<Child*>(c))(); }, &child);
}
pid_t spawn_shared(int flags, void (*run)(void*), void* arg);

}  // namespace reaper
