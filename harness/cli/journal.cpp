#include "harness/cli/journal.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "harness/cli/common.h"
#include "harness/model/result_json.h"
#include "harness/model/text.h"
#include "harness/support/write_all.h"

namespace reapcheck {
namespace {

constexpr const char* kFormat = "reapcheck-journal/1";

bool write_line(int fd, const std::string& line) {
  return write_all(fd, line) && ::fdatasync(fd) == 0;
}

// The pid a lock file names, as its holder wrote it; empty when it has yet to.
std::string holder_of(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  std::string pid(buf, n > 0 ? static_cast<size_t>(n) : 0);
  while (!pid.empty() && pid.back() == '\n') pid.pop_back();
  return pid;
}

// A killed run's journal in `dir`, moved to a folder of its own there (DIR/killed-run-XXXXXX),
// with a word on stderr; false, also said, when it could not be moved (it is then left alone).
bool keep_killed_journal(const std::filesystem::path& dir, const std::filesystem::path& journal) {
  struct stat st {};
  if (::lstat(journal.c_str(), &st) != 0) return true;  // none
  std::string finished = "an unreadable journal";
  try {
    finished = fmt::format("{} finished case(s)", recover_journal(dir).cases.size());
  } catch (const std::exception&) {
  }
  std::string kept = (dir / "killed-run-XXXXXX").string();
  if (::mkdtemp(kept.data()) == nullptr ||
      ::rename(journal.c_str(), (std::filesystem::path(kept) / Journal::kFile).c_str()) != 0) {
    fmt::print(stderr,
               "reapcheck: {} holds a killed run's journal ({}), which cannot be kept: {}\n",
               journal.string(), finished, std::strerror(errno));
    return false;
  }
  fmt::print(stderr,
             "reapcheck: {} held the journal of a run that was killed ({}); it is kept in {}, "
             "where `reapcheck report --recover {}` writes its reports\n",
             journal.string(), finished, kept, kept);
  return true;
}

}  // namespace

OutDirLock::OutDirLock(const std::string& out_dir) {
  if (out_dir.empty()) return;
  const auto file = std::filesystem::path(out_dir) / kFile;
  fd_.reset(::open(file.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644));
  if (!fd_) {
    throw UsageError(fmt::format("cannot lock --out {}: {}: {}; nothing was run", out_dir,
                                 file.string(), std::strerror(errno)));
  }
  if (::flock(fd_.get(), LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    if (err != EWOULDBLOCK) {
      throw UsageError(fmt::format("cannot lock --out {}: {}: {}; nothing was run", out_dir,
                                   file.string(), std::strerror(err)));
    }
    const std::string pid = holder_of(fd_.get());
    throw UsageError(fmt::format(
        "--out {} is in use by another reapcheck ({}, holding {}); nothing was run", out_dir,
        pid.empty() ? "its pid not yet written" : "pid " + pid, file.string()));
  }
  const std::string pid = fmt::format("{}\n", ::getpid());
  if (::ftruncate(fd_.get(), 0) != 0 || ::pwrite(fd_.get(), pid.data(), pid.size(), 0) < 0) {
    fmt::print(stderr, "reapcheck: cannot write this run's pid into {}: {}\n", file.string(),
               std::strerror(errno));
  }
}

Journal::Journal(const std::string& out_dir, const RunResult& run, int planned) {
  if (out_dir.empty()) return;
  path_ = std::filesystem::path(out_dir) / kFile;
  if (keep_killed_journal(out_dir, path_)) {
    fd_.reset(::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW | O_CLOEXEC,
                     0644));
  }
  nlohmann::json header = run;
  header["format"] = kFormat;
  header["planned"] = planned;
  header.erase("cases");
  if (!fd_ || !write_line(fd_.get(), json_text(header) + "\n")) {
    fmt::print(stderr, "reapcheck: cannot keep a journal in {}: {}\n", path_.string(),
               std::strerror(errno));
    failed_ = true;
  }
}

Journal::~Journal() = default;

void Journal::add(const CaseResult& c) {
  if (!fd_ || failed_) return;
  if (!write_line(fd_.get(), json_text(nlohmann::json(c)) + "\n")) {
    fmt::print(stderr, "reapcheck: the journal {} could not be written: {}\n", path_.string(),
               std::strerror(errno));
    failed_ = true;
  }
}

void Journal::remove() {
  if (!fd_) return;
  fd_.reset();
  std::error_code ec;
  std::filesystem::remove(path_, ec);
}

RunResult recover_journal(const std::filesystem::path& out_dir, int* torn) {
  const auto file = out_dir / Journal::kFile;
  std::ifstream in(file);
  if (!in) {
    throw std::runtime_error(fmt::format(
        "{}: no journal there (a run keeps one under --out while it runs; one that ended wrote "
        "its reports and removed it)",
        file.string()));
  }
  std::string line;
  std::getline(in, line);
  const auto header = nlohmann::json::parse(line, nullptr, false);
  if (header.is_discarded() || header.value("format", "") != kFormat) {
    throw std::runtime_error(fmt::format("{}: not a reapcheck journal", file.string()));
  }
  nlohmann::json whole = header;
  whole["cases"] = nlohmann::json::array();
  RunResult run = whole.get<RunResult>();
  int cut = 0;
  while (std::getline(in, line)) {
    const auto c = nlohmann::json::parse(line, nullptr, false);
    if (c.is_discarded()) {
      ++cut;  // the line the kill cut short
      continue;
    }
    run.cases.push_back(c.get<CaseResult>());
  }
  if (torn != nullptr) *torn = cut;
  run.never_run = std::max(0, header.value("planned", 0) - static_cast<int>(run.cases.size()));
  return run;
}

}  // namespace reapcheck
