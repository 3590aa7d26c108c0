/* One process as the BPF task iterator writes it; shared by task_iter.bpf.c and task_iter.cpp,
   so it is C, with fixed-size fields and no padding. */
#ifndef REAPCHECK_TASK_RECORD_H
#define REAPCHECK_TASK_RECORD_H

struct task_record {
  int pid;
  int ppid;
  int pgid;
  int sid;
  unsigned long long start_boottime_ns;
  unsigned int state;      /* task->__state */
  unsigned int exit_state; /* task->exit_state */
  char comm[16];
};

#endif
