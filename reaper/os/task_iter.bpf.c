// A BPF task iterator: one read() of the iterator's fd yields a record per process of the
// reader's PID namespace, with ids as that namespace numbers them — the fields of
// /proc/<pid>/stat that a reaper walks a tree by, without opening a file per process.
// vmlinux.h defines the kernel's types, which libbpf's headers use: it must come first.
// clang-format off
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
// clang-format on

#include "reaper/os/task_record.h"

char LICENSE[] SEC("license") = "GPL";

// The id `pid` has at `level`, if that level is the reader's namespace `ns`; 0 when the process
// is not visible there (its group or session was made outside it), as /proc reports it.
static __always_inline int nr_at(struct pid* pid, unsigned int level, struct pid_namespace* ns) {
  if (!pid || BPF_CORE_READ(pid, level) < level) return 0;
  struct upid up = {};
  // numbers[] is indexed by a runtime value: read it as plain memory.
  unsigned long at =
      (unsigned long)pid + bpf_core_field_offset(struct pid, numbers) + level * sizeof(struct upid);
  if (bpf_probe_read_kernel(&up, sizeof(up), (void*)at) != 0 || up.ns != ns) return 0;
  return up.nr;
}

SEC("iter/task")
int snapshot(struct bpf_iter__task* ctx) {
  struct task_struct* task = ctx->task;
  if (!task || task->pid != task->tgid) return 0;  // the end, or a thread that is not the leader

  // The reader's namespace: the iterator runs in the context of the task that read() its fd.
  struct task_struct* reader = bpf_get_current_task_btf();
  struct pid* reader_pid = BPF_CORE_READ(reader, thread_pid);
  const unsigned int level = BPF_CORE_READ(reader_pid, level);
  struct upid own = {};
  unsigned long at = (unsigned long)reader_pid + bpf_core_field_offset(struct pid, numbers) +
                     level * sizeof(struct upid);
  if (bpf_probe_read_kernel(&own, sizeof(own), (void*)at) != 0) return 0;

  struct task_record r = {};
  r.pid = nr_at(BPF_CORE_READ(task, thread_pid), level, own.ns);
  // The parent *process*, as /proc/<pid>/stat has it: a child forked by a second thread has
  // that thread as real_parent, whose own id (thread_pid) is not the process's.
  r.ppid = nr_at(BPF_CORE_READ(task, real_parent, signal, pids[PIDTYPE_TGID]), level, own.ns);
  r.pgid = nr_at(BPF_CORE_READ(task, signal, pids[PIDTYPE_PGID]), level, own.ns);
  r.sid = nr_at(BPF_CORE_READ(task, signal, pids[PIDTYPE_SID]), level, own.ns);
  r.start_boottime_ns = BPF_CORE_READ(task, start_boottime);
  r.state = BPF_CORE_READ(task, __state);
  r.exit_state = BPF_CORE_READ(task, exit_state);
  bpf_probe_read_kernel_str(r.comm, sizeof(r.comm), task->comm);
  bpf_seq_write(ctx->meta->seq, &r, sizeof(r));
  return 0;
}
