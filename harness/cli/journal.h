// A run's journal under --out: the run's header, then one JSON line per case as it finishes,
// each written and fsync'd before the next case is reported, so that a run killed outright (a CI
// job's timeout, the OOM killer) keeps every case it finished. `reapcheck report --recover DIR`
// rebuilds the reports from it; a run that ends, however, writes its reports and removes it.
#pragma once

#include <filesystem>
#include <string>

#include "harness/model/result.h"

namespace reapcheck {

class Journal {
 public:
  static constexpr const char* kFile = "journal.jsonl";

  // Starts DIR/journal.jsonl with `run`'s header (its plan, options and notes; no case). An empty
  // `out_dir` keeps no journal.
  Journal(const std::string& out_dir, const RunResult& run);
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
  int fd_ = -1;
  bool failed_ = false;
};

// The run a journal under `out_dir` holds: its header and every complete case line (a line cut
// short by the kill is left out, and counted in `*torn`). Throws std::runtime_error naming the
// file when there is none or its header is unreadable.
RunResult recover_journal(const std::filesystem::path& out_dir, int* torn = nullptr);

}  // namespace reapcheck
