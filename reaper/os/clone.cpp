#include "reaper/os/clone.h"

#include <fcntl.h>
#include <linux/sched.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "reaper/os/unique_fd.h"

namespace reaper {

pid_t clone_child(int flags, const std::string& cgroup, bool* joined) {
  if (joined != nullptr) *joined = false;
  if (!cgroup.empty()) {
    const UniqueFd group(::open(cgroup.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!group) return -1;
    clone_args args{};
    args.flags = static_cast<std::uint64_t>(static_cast<unsigned>(flags)) | CLONE_INTO_CGROUP;
    args.exit_signal = SIGCHLD;
    args.cgroup = static_cast<std::uint64_t>(group.get());
    const long pid = ::syscall(SYS_clone3, &args, sizeof args);
    if (pid >= 0 || (errno != ENOSYS && errno != E2BIG)) {
      if (pid >= 0 && joined != nullptr) *joined = true;
      return static_cast<pid_t>(pid);
    }
  }
  // Without CLONE_VM or a new stack, clone() is fork() with flags.
  return static_cast<pid_t>(::syscall(SYS_clone, flags | SIGCHLD, nullptr, nullptr, nullptr, 0));
}

namespace {

struct SharedStart {
  void (*run)(void*);
  void* arg;
};

int start_shared(void* p) {
  // A handler would run on this process's memory, and the parent's state with it; an ignored
  // signal stays ignored, as across a fork and an exec.
  for (int sig = 1; sig < NSIG; ++sig) {
    struct sigaction sa {};
    if (::sigaction(sig, nullptr, &sa) == 0 && sa.sa_handler != SIG_DFL &&
        sa.sa_handler != SIG_IGN) {
      sa = {};
      sa.sa_handler = SIG_DFL;
      ::sigaction(sig, &sa, nullptr);
    }
  }
  const auto* start = static_cast<const SharedStart*>(p);
  start->run(start->arg);
  ::_exit(127);  // `run` returned without an exec
}

}  // namespace

pid_t spawn_shared(int flags, void (*run)(void*), void* arg) {
  sigset_t all;
  sigset_t old;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &old);
  SharedStart start{run, arg};
  pid_t pid = -1;
  if constexpr (!kSpawnSharesMemory) {
    // ASan cannot follow a child onto a stack of its own in this process's memory: at the
    // child's last call (exec, _exit) it takes the stack for the main thread's and reports
    // overflows that are not (google/sanitizers#189). There the child is a copy, as a fork's,
    // on the same terms otherwise: this thread waits for its exec.
    pid = static_cast<pid_t>(
        ::syscall(SYS_clone, CLONE_VFORK | flags | SIGCHLD, nullptr, nullptr, nullptr, 0));
    if (pid == 0) start_shared(&start);
  } else {
    // The child's stack: the caller's is in use, by this very call. CLONE_VFORK keeps it mapped
    // until the child has exec'd or exited. execvpe() builds its path candidates on it.
    constexpr size_t kStack = size_t{256} * 1024;
    void* stack = ::mmap(nullptr, kStack, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack != MAP_FAILED) {
      pid = ::clone(start_shared, static_cast<char*>(stack) + kStack,
                    CLONE_VM | CLONE_VFORK | flags | SIGCHLD, &start);
      const int err = errno;
      ::munmap(stack, kStack);
      errno = err;
    }
  }
  const int err = errno;
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  errno = err;
  return pid;
}

}  // namespace reaper
