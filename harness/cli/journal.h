// A run's journal under --out: the run's header, then one JSON line per case as it finishes,
// each appended and fsync'd before the next case is reported, so that a run killed outright (a CI
// job's timeout, the OOM killer) keeps every case it finished. `reapcheck report --recover DIR`
// rebuilds the reports from it; a run that ends, however, writes its reports and removes it.
// --out DIR is locked for the run (OutDirLock): one journal, one writer.
#pragma once

#include <filesystem>
#include <string>

#include "harness/model/result.h"
#include "reaper/os/unique_fd.h"

namespace reapcheck {

// --out DIR held by one command at a time: an flock on DIR/reapcheck.lock, which holds the
// holder's pid, for as long as the holder lives (the kernel lets go when it dies, however it
// dies). DIR held by another is a UsageError (exit 2) naming that pid. An empty `out_dir` holds
// nothing.
class OutDirLock {
 public:
  static constexpr const char* kFile = "reapcheck.lock";

  explicit OutDirLock(const std::string& out_dir);

 private:
  reaper::UniqueFd fd_;
};

class Journal {
 public:
  static constexpr const char* kFile = "journal.jsonl";

  // Starts DIR/journal.jsonl with `run`'s header (its plan, options and notes; no case), opened to
  // append, never truncated. A journal already there is a killed run's (DIR is locked, and a run
  // that ends removes its own): it is moved, with a word on stderr, to a folder of its own in DIR,
  // where `report --recover` reads it. `planned` is how many cases the run sets out to run: one
  // recovered with fewer is incomplete. An empty `out_dir` keeps no journal.
  Journal(const std::string& out_dir, const RunResult& run, int planned);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  // Appends the case and syncs it to disk; a write that fails is said once on stderr, and the
  // run goes on.
  void add(const CaseResult& c);
  // The run's reports are written: the journal has nothing more to keep.
  void remove();

 private:
  std::filesystem::path path_;
  reaper::UniqueFd fd_;
  bool failed_ = false;
};

// The run a journal under `out_dir` holds: its header and every complete case line (a line cut
// short by the kill is left out, and counted in `*torn`), the cases it planned and never finished
// counted in never_run. Throws std::runtime_error naming the file when there is none or its header
// is unreadable.
RunResult recover_journal(const std::filesystem::path& out_dir, int* torn = nullptr);

}  // namespace reapcheck
