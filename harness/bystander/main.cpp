// reapcheck-bystander ROLE [ARGS...]
// NAME ARGS... with REAPCHECK_BYSTANDER_ROLE=ROLE (run through a link called NAME: a namesake of
// a program, whose name and command line are that program's)
//
// A process no reaper may touch. It records every catchable signal it receives — signal, the
// sender's pid, si_code and a monotonic time — as one line appended to REAPCHECK_SIGNAL_LOG,
// announces "ready <pid> <role>" on REAPCHECK_READY_FD once its handlers are in place, and
// then waits forever: only SIGKILL ends it, and the runner sees that through a pidfd. ARGS are
// ignored; they let a bystander look like something else (`tail -f <worktree>/dev.log`).
#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace {

int g_log = -1;

// Appends the decimal form of `v` at `p`; async-signal-safe.
char* put(char* p, long long v) {
  if (v < 0) {
    *p++ = '-';
    v = -v;
  }
  char digits[24];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (n > 0) *p++ = digits[--n];
  return p;
}

void on_signal(int sig, siginfo_t* info, void*) {
  const int saved = errno;
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  char line[128];
  char* p = line;
  p = put(p, ::getpid());
  *p++ = ' ';
  p = put(p, sig);
  *p++ = ' ';
  p = put(p, info->si_pid);
  *p++ = ' ';
  p = put(p, info->si_code);
  *p++ = ' ';
  p = put(p, static_cast<long long>(now.tv_sec) * 1000000000LL + now.tv_nsec);
  *p++ = '\n';
  (void)!::write(g_log, line, static_cast<size_t>(p - line));  // O_APPEND: one line, whole
  errno = saved;
}

int fd_from_env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::atoi(v) : -1;
}

}  // namespace

int main(int argc, char** argv) {
  const char* role = std::getenv("REAPCHECK_BYSTANDER_ROLE");
  if (role == nullptr && argc >= 2) role = argv[1];
  if (role == nullptr) {
    const char usage[] = "usage: reapcheck-bystander ROLE [ARGS...]\n";
    (void)!::write(2, usage, sizeof usage - 1);
    return 2;
  }
  const char* log = std::getenv("REAPCHECK_SIGNAL_LOG");
  g_log = log != nullptr ? ::open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644) : -1;
  if (g_log < 0) {
    const char msg[] = "reapcheck-bystander: REAPCHECK_SIGNAL_LOG is not a writable file\n";
    (void)!::write(2, msg, sizeof msg - 1);
    return 2;
  }

  struct sigaction sa {};
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigfillset(&sa.sa_mask);  // one record at a time
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig == SIGKILL || sig == SIGSTOP) continue;
    ::sigaction(sig, &sa, nullptr);  // fails harmlessly for the numbers glibc reserves
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);

  const int ready = fd_from_env("REAPCHECK_READY_FD");
  if (ready >= 0) {
    char line[96] = "ready ";
    char* p = put(line + 6, ::getpid());
    *p++ = ' ';
    size_t length = std::strlen(role);
    if (length > 64) length = 64;
    std::memcpy(p, role, length);
    p += length;
    *p++ = '\n';
    (void)!::write(ready, line, static_cast<size_t>(p - line));
    ::close(ready);
  }
  for (;;) ::pause();
}
