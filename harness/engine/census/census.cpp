#include "harness/engine/census/census.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "harness/model/text.h"
#include "reaper/os/pidfd.h"
#include "reaper/os/proc_table.h"
#include "reaper/os/read_file.h"
#include "reaper/os/sys_error.h"

namespace reapcheck {
namespace {

using reaper::Detail;
using reaper::ProcTable;

// A parent chain is short in every scenario; the bound only stops a loop on a corrupt read.
constexpr int kMaxDepth = 4096;

std::string name_of(const reaper::ProcInfo& p) {
  return printable(p.argv.empty() ? p.comm : p.argv.front());
}

}  // namespace

Census::Census() : runner_(::getpid()), runner_sid_(::getsid(0)) {}

void Census::set_reaper_host(pid_t pid) {
  const std::lock_guard lock(mutex_);
  host_ = pid;
}

void Census::add_member(pid_t pid, const std::string& role, int pidfd) {
  const auto p = ProcTable::read_one(pid, Detail::stat);
  const std::string caught = reaper::status_field(pid, "SigCgt");
  const bool catches = caught.empty() || std::strtoull(caught.c_str(), nullptr, 16) != 0;
  const std::lock_guard lock(mutex_);
  members_.insert_or_assign(
      pid, Known{role, reaper::dup_fd(pidfd), p ? p->sid : 0, p ? p->ppid : 0, catches});
}

void Census::add_reaper(pid_t pid, const std::string& name, int pidfd) {
  const std::lock_guard lock(mutex_);
  reapers_.insert_or_assign(pid, Known{name, reaper::dup_fd(pidfd), 0, 0});
}

void Census::add_bystander(pid_t pid, const std::string& role, int pidfd) {
  const auto p = ProcTable::read_one(pid, Detail::stat);
  const std::lock_guard lock(mutex_);
  bystanders_.insert_or_assign(pid,
                               Known{role, reaper::dup_fd(pidfd), p ? p->sid : 0, p ? p->ppid : 0});
}

void Census::claim_orphans_until_kill(bool claim) {
  const std::lock_guard lock(mutex_);
  orphans_are_tree_ = claim;
}

void Census::note_birth(pid_t parent, pid_t child) {
  // Read before the lock: the parent may exit meanwhile, and then keeps the last name it had.
  Forker forker;
  if (keep_names_) {
    const std::string proc = "/proc/" + std::to_string(parent);
    forker.argv = reaper::parse_cmdline(reaper::read_file(proc + "/cmdline"));
    std::error_code ec;
    forker.cwd = std::filesystem::read_symlink(proc + "/cwd", ec).string();
  }
  const std::lock_guard lock(mutex_);
  if (!forker.argv.empty()) forked_as_[parent] = std::move(forker);
  const bool reborn = births_.count(child) != 0;
  births_[child] = parent;
  if (!reborn) return;
  for (auto* known : {&members_, &bystanders_, &reapers_}) {
    if (auto it = known->find(child);
        it != known->end() && reaper::pidfd_exited(it->second.pidfd.get())) {
      it->second.superseded = true;
    }
  }
}

std::optional<pid_t> Census::born_of(pid_t pid) const {
  const std::lock_guard lock(mutex_);
  const auto it = births_.find(pid);
  if (it == births_.end()) return std::nullopt;
  return it->second;
}

std::map<pid_t, pid_t> Census::births() const {
  const std::lock_guard lock(mutex_);
  return births_;
}

std::vector<std::string> Census::forked_as(pid_t pid) const {
  const std::lock_guard lock(mutex_);
  const auto it = forked_as_.find(pid);
  return it == forked_as_.end() ? std::vector<std::string>{} : it->second.argv;
}

std::string Census::forked_in(pid_t pid) const {
  const std::lock_guard lock(mutex_);
  const auto it = forked_as_.find(pid);
  return it == forked_as_.end() ? std::string() : it->second.cwd;
}

bool Census::born_known(pid_t pid) const {
  const std::lock_guard lock(mutex_);
  return births_.count(pid) != 0;
}

bool Census::born_of_reaper(pid_t pid) const {
  const std::lock_guard lock(mutex_);
  const auto party = by_lineage(pid, {});
  return party && party->kind == Party::Kind::reaper;
}

std::optional<pid_t> Census::reaper_root(pid_t pid) const {
  const std::lock_guard lock(mutex_);
  pid_t at = pid;
  for (int depth = 0; depth < kMaxDepth; ++depth) {
    const auto up = births_.find(at);
    if (up == births_.end() || members_.count(up->second) != 0 ||
        bystanders_.count(up->second) != 0) {
      return std::nullopt;
    }
    if (up->second == host_ && host_ != 0) return at;
    at = up->second;
  }
  return std::nullopt;
}

std::optional<Party> Census::by_lineage(pid_t pid, const std::string& name) const {
  auto registered = [](const std::map<pid_t, Known>& known, pid_t p) {
    auto it = known.find(p);
    return it != known.end() && !it->second.superseded ? &it->second : nullptr;
  };
  auto up = births_.find(pid);
  for (int depth = 0; depth < kMaxDepth && up != births_.end(); ++depth) {
    const pid_t parent = up->second;
    if (registered(members_, parent) != nullptr) return Party{Party::Kind::tree, pid, name};
    if (const Known* b = registered(bystanders_, parent)) {
      return Party{Party::Kind::bystander, pid, b->role + "'s " + name};
    }
    if (registered(reapers_, parent) != nullptr || (parent == host_ && host_ != 0)) {
      return Party{Party::Kind::reaper, pid, name};
    }
    if (parent == runner_) return std::nullopt;  // the harness's own: judged as before
    up = births_.find(parent);
  }
  return std::nullopt;
}

bool Census::still(const Known& known, pid_t pid) {
  if (!reaper::pidfd_exited(known.pidfd.get())) return true;
  // Exited: a zombie not yet reaped keeps its pid, and the pidfd still names it.
  return reaper::pidfd_target(::getpid(), known.pidfd.get()).value_or(-1) == pid;
}

std::optional<Party> Census::who(pid_t pid) const {
  const std::lock_guard lock(mutex_);
  return who_locked(pid);
}

std::optional<Party> Census::who_locked(pid_t pid) const {
  if (pid <= 0) return std::nullopt;
  if (pid == runner_) return Party{Party::Kind::harness, pid, "case runner"};
  if (pid == host_) return Party{Party::Kind::harness, pid, std::string(kReaperHostRole)};
  for (const auto& [kind, known] :
       {std::pair{Party::Kind::member, &members_}, std::pair{Party::Kind::bystander, &bystanders_},
        std::pair{Party::Kind::reaper, &reapers_}}) {
    if (auto it = known->find(pid); it != known->end() && still(it->second, pid)) {
      return Party{kind, pid, it->second.role, !reaper::pidfd_exited(it->second.pidfd.get())};
    }
  }
  auto party = by_ancestry(pid);
  if (party) party->alive = alive(pid);
  return party;
}

std::optional<Party> Census::who_or_was(pid_t pid) const {
  const std::lock_guard lock(mutex_);
  if (auto now = who_locked(pid)) return now;
  for (const auto& [kind, known] :
       {std::pair{Party::Kind::member, &members_}, std::pair{Party::Kind::bystander, &bystanders_},
        std::pair{Party::Kind::reaper, &reapers_}}) {
    if (auto it = known->find(pid); it != known->end()) {
      return Party{kind, pid, it->second.role, false};
    }
  }
  return std::nullopt;
}

bool Census::alive(pid_t pid) {
  auto fd = reaper::pidfd_open(pid);
  return fd && !reaper::pidfd_exited(fd->get());
}

std::vector<std::string> Census::dead_members(const std::set<pid_t>& except) const {
  const std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  for (const auto& [pid, known] : members_) {
    if (except.count(pid) == 0 && reaper::pidfd_exited(known.pidfd.get())) {
      out.push_back(known.role + " (pid " + std::to_string(pid) + ")");
    }
  }
  return out;
}

std::vector<std::string> Census::exited_unbidden() const {
  const std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  for (const auto& [pid, known] : members_) {
    const auto status = reaper::pidfd_exit_status(known.pidfd.get());
    if (!known.catches && status && WIFEXITED(*status)) {
      out.push_back(known.role + " (pid " + std::to_string(pid) + ", exit status " +
                    std::to_string(WEXITSTATUS(*status)) + ")");
    }
  }
  return out;
}

std::vector<pid_t> Census::dependants(pid_t pid, pid_t sid) const {
  const std::lock_guard lock(mutex_);
  std::vector<pid_t> out;
  for (const auto& [member, known] : members_) {
    if (member != pid && taken_along(known.ppid, known.sid, pid, sid)) out.push_back(member);
  }
  return out;
}

std::optional<std::pair<pid_t, pid_t>> Census::origin(pid_t member) const {
  const std::lock_guard lock(mutex_);
  const auto it = members_.find(member);
  if (it == members_.end()) return std::nullopt;
  return std::pair{it->second.ppid, it->second.sid};
}

// A process the census was not told about is what its nearest known ancestor makes it: below a
// member it is of the tree, below a bystander a bystander, below the supervisor the reaper's own.
// Otherwise — below the reaper host, or an orphan reparented to PID 1 or to a subreaper — it is
// of the tree or a bystander by its session, and else the reaper's own (a kill command, its
// helpers); but an orphan of PID 1 before the kill of an observed tree is the tree's.
std::optional<Party> Census::by_ancestry(pid_t pid) const {
  const auto self = ProcTable::read_one(pid, Detail::argv);
  if (!self) return std::nullopt;
  const std::string name = name_of(*self);
  // Lineage first, where the kernel gave it: an observed tree's orphans are the tree's until the
  // kill (below), and its agent is born of the reaper host before it is registered.
  if (auto party = by_lineage(pid, name);
      party && !(orphans_are_tree_ && party->kind == Party::Kind::reaper)) {
    return party;
  }
  auto alive_in = [](const std::map<pid_t, Known>& known, pid_t p) {
    auto it = known.find(p);
    return it != known.end() && still(it->second, p) ? &it->second : nullptr;
  };
  pid_t up = self->ppid;
  for (int depth = 0; depth < kMaxDepth && up > 0 && up != runner_ && up != host_; ++depth) {
    if (alive_in(members_, up) != nullptr) return Party{Party::Kind::tree, pid, name};
    if (const Known* b = alive_in(bystanders_, up)) {
      return Party{Party::Kind::bystander, pid, b->role + "'s " + name};
    }
    if (alive_in(reapers_, up) != nullptr) return Party{Party::Kind::reaper, pid, name};
    const auto parent = ProcTable::read_one(up, Detail::stat);
    if (!parent) break;
    up = parent->ppid;
  }
  if (self->sid == runner_sid_) return Party{Party::Kind::reaper, pid, name};
  // Adopted by init, or by a subreaper host, outside the harness's session (tested above).
  if (orphans_are_tree_ && (up == runner_ || up == host_)) {
    return Party{Party::Kind::tree, pid, name};
  }
  for (const auto& [member, known] : members_) {
    if (known.sid == self->sid) return Party{Party::Kind::tree, pid, name};
  }
  for (const auto& [bystander, known] : bystanders_) {
    if (known.sid == self->sid) {
      return Party{Party::Kind::bystander, pid, known.role + "'s " + name};
    }
  }
  return Party{Party::Kind::reaper, pid, name};
}

std::vector<Party> Census::with_id(pid_t id, bool session) const {
  const ProcTable table = ProcTable::read("/proc", Detail::stat);
  const std::lock_guard lock(mutex_);
  std::vector<Party> out;
  for (const auto& p : table.all()) {
    if ((session ? p.sid : p.pgid) != id) continue;
    if (auto party = who_locked(p.pid)) out.push_back(std::move(*party));
  }
  return out;
}

std::vector<Party> Census::everyone_but(pid_t sender) const {
  const ProcTable table = ProcTable::read("/proc", Detail::stat);
  const std::lock_guard lock(mutex_);
  std::vector<Party> out;
  for (const auto& p : table.all()) {
    if (p.pid == 1 || p.pid == sender) continue;
    if (auto party = who_locked(p.pid)) out.push_back(std::move(*party));
  }
  return out;
}

}  // namespace reapcheck
