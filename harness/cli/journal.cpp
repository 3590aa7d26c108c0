#include "harness/cli/journal.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "harness/model/result_json.h"
#include "harness/model/text.h"
#include "harness/support/write_all.h"

namespace reapcheck {
namespace {

constexpr const char* kFormat = "reapcheck-journal/1";

bool write_line(int fd, const std::string& line) {
  return write_all(fd, line) && ::fdatasync(fd) == 0;
}

}  // namespace

Journal::Journal(const std::string& out_dir, const RunResult& run) {
  if (out_dir.empty()) return;
  path_ = std::filesystem::path(out_dir) / kFile;
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  nlohmann::json header = run;
  header["format"] = kFormat;
  header.erase("cases");
  if (fd_ < 0 || !write_line(fd_, json_text(header) + "\n")) {
    fmt::print(stderr, "reapcheck: cannot keep a journal in {}: {}\n", path_.string(),
               std::strerror(errno));
    failed_ = true;
  }
}

Journal::~Journal() {
  if (fd_ >= 0) ::close(fd_);
}

void Journal::add(const CaseResult& c) {
  if (fd_ < 0 || failed_) return;
  if (!write_line(fd_, json_text(nlohmann::json(c)) + "\n")) {
    fmt::print(stderr, "reapcheck: the journal {} could not be written: {}\n", path_.string(),
               std::strerror(errno));
    failed_ = true;
  }
}

void Journal::remove() {
  if (fd_ < 0) return;
  ::close(fd_);
  fd_ = -1;
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
  return run;
}

}  // namespace reapcheck
