/* The daemon test: the classic double fork. The test forks a child; the child calls setsid()
 * (a session and group of its own) and forks the daemon, then exits; the test reaps that child
 * and returns 0. The daemon (a grandchild, orphaned to pid 1 once its parent is gone) tells its
 * pid on a pipe, closes every descriptor (so ctest, which waits for the test's output pipes to
 * close, does not wait for it), moves to / and sleeps 300 s: a leak that a bare run by hand
 * leaves for 300 s at most. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
  int fds[2];
  if (pipe(fds) != 0) {
    perror("pipe");
    return 1;
  }
  pid_t child = fork();
  if (child < 0) {
    perror("fork");
    return 1;
  }
  if (child == 0) {
    close(fds[0]);
    if (setsid() < 0) {
      perror("setsid");
      _exit(1);
    }
    pid_t daemon = fork();
    if (daemon < 0) {
      perror("fork");
      _exit(1);
    }
    if (daemon > 0) _exit(0); /* the middle process exits: the daemon is orphaned */
    pid_t self = getpid();
    if (write(fds[1], &self, sizeof self) != (ssize_t)sizeof self) _exit(1);
    long max = sysconf(_SC_OPEN_MAX);
    if (max < 0 || max > 65536) max = 65536;
    for (long fd = 0; fd < max; fd++) close((int)fd);
    if (chdir("/") != 0) _exit(1);
    umask(0);
    sleep(300);
    _exit(0);
  }
  close(fds[1]);
  int status;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) {
      perror("waitpid");
      return 1;
    }
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "daemon: the middle process failed (status %#x)\n", status);
    return 1;
  }
  pid_t daemon;
  ssize_t n = read(fds[0], &daemon, sizeof daemon);
  if (n != (ssize_t)sizeof daemon) {
    fprintf(stderr, "daemon: no pid from the daemon\n");
    return 1;
  }
  printf("daemon: left daemon %d running (double fork, own session)\n", (int)daemon);
  return 0;
}
