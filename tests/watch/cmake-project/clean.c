/* The clean test: forks a child that sleeps, kills it (SIGKILL) and reaps it. Leaves nothing. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
  pid_t pid = fork();
  if (pid < 0) {
    perror("fork");
    return 1;
  }
  if (pid == 0) {
    sleep(300); /* bounded: never outlives 300 s even if the kill below were lost */
    _exit(0);
  }
  if (kill(pid, SIGKILL) != 0) {
    perror("kill");
    return 1;
  }
  int status;
  if (waitpid(pid, &status, 0) != pid) {
    perror("waitpid");
    return 1;
  }
  if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
    fprintf(stderr, "clean: child %d did not die of SIGKILL (status %#x)\n", (int)pid, status);
    return 1;
  }
  printf("clean: child %d killed and reaped\n", (int)pid);
  return 0;
}
