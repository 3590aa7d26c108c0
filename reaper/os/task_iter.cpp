#include "reaper/os/task_iter.h"

#ifdef REAPCHECK_TASK_ITER

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>

#include "reaper/os/task_record.h"
#include "reaper/os/unique_fd.h"
#include "task_iter.skel.h"

namespace reaper {
namespace {

// The state letter /proc prints, from the same bits (the kernel's __task_state_index).
char state_letter(unsigned int state, unsigned int exit_state) {
  constexpr unsigned int kReport = 0x7f;  // TASK_REPORT
  constexpr unsigned int kIdle = 0x402;   // TASK_UNINTERRUPTIBLE | TASK_NOLOAD
  constexpr unsigned int kRtlockWait = 0x1000;
  unsigned int bits = (state | exit_state) & kReport;
  if ((state & kIdle) == kIdle) bits = kReport + 1;
  if (state == kRtlockWait) bits = 2;  // TASK_UNINTERRUPTIBLE
  static constexpr char kLetters[] = "RSDTtXZPI";
  return kLetters[std::bit_width(bits)];
}

class Iterator {
 public:
  Iterator() {
    libbpf_set_print(nullptr);  // a machine without BPF is normal: /proc serves instead
    skel_ = task_iter_bpf__open_and_load();
    if (skel_ == nullptr) return;
    link_ = bpf_program__attach_iter(skel_->progs.snapshot, nullptr);
    if (link_ == nullptr) {
      task_iter_bpf__destroy(skel_);
      skel_ = nullptr;
    }
  }
  ~Iterator() {
    if (link_ != nullptr) bpf_link__destroy(link_);
    if (skel_ != nullptr) task_iter_bpf__destroy(skel_);
  }
  bool ok() const { return link_ != nullptr; }

  std::optional<std::string> read() const {
    UniqueFd fd(bpf_iter_create(bpf_link__fd(link_)));
    if (!fd) return std::nullopt;
    std::string out;
    char buf[1 << 16];
    for (;;) {
      const ssize_t n = ::read(fd.get(), buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return std::nullopt;
      if (n == 0) return out;
      out.append(buf, static_cast<size_t>(n));
    }
  }

 private:
  task_iter_bpf* skel_ = nullptr;
  bpf_link* link_ = nullptr;
};

const Iterator& iterator() {
  static const Iterator it;
  return it;
}

}  // namespace

bool task_iter_available() {
  return iterator().ok();
}

std::optional<std::vector<ProcInfo>> read_task_iter() {
  if (!iterator().ok()) return std::nullopt;
  const auto bytes = iterator().read();
  if (!bytes) return std::nullopt;
  static const long ns_per_tick = 1'000'000'000L / ::sysconf(_SC_CLK_TCK);
  std::vector<ProcInfo> procs;
  procs.reserve(bytes->size() / sizeof(task_record));
  for (size_t at = 0; at + sizeof(task_record) <= bytes->size(); at += sizeof(task_record)) {
    task_record r;
    std::copy_n(bytes->data() + at, sizeof r, reinterpret_cast<char*>(&r));
    if (r.pid == 0) continue;  // not numbered in our namespace: raced with a setns or exit
    ProcInfo p;
    p.pid = r.pid;
    p.ppid = r.ppid;
    p.pgid = r.pgid;
    p.sid = r.sid;
    p.comm.assign(r.comm, ::strnlen(r.comm, sizeof r.comm));
    p.state = state_letter(r.state, r.exit_state);
    p.start_time = r.start_boottime_ns / static_cast<unsigned long long>(ns_per_tick);
    procs.push_back(std::move(p));
  }
  std::sort(procs.begin(), procs.end(),
            [](const ProcInfo& a, const ProcInfo& b) { return a.pid < b.pid; });
  // In the initial PID namespace this kernel's iterator does not yield the init process (seen
  // on 6.18); /proc has it. In any other namespace the iterator's first task is pid 1.
  if (procs.empty() || procs.front().pid != 1) {
    if (auto init = ProcTable::read_one(1, Detail::stat)) procs.insert(procs.begin(), *init);
  }
  return procs;
}

}  // namespace reaper

#else  // built without clang, bpftool or libbpf

namespace reaper {

bool task_iter_available() {
  return false;
}

std::optional<std::vector<ProcInfo>> read_task_iter() {
  return std::nullopt;
}

}  // namespace reaper

#endif
