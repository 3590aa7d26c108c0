// Writing a report file whole: to a temporary created exclusively in the report's folder (a name
// of its own, O_EXCL|O_NOFOLLOW: nothing already there, a planted symlink included, is opened or
// followed), synced, then renamed over the report, so a reader never sees half a report and an
// interrupted run leaves the previous one intact. A report path is a regular file or a new one:
// anything else (a FIFO, a device, a directory, a symlink) is refused and never opened — an open
// of a FIFO with no reader would block for ever, a rename over the others replace them.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

namespace reapcheck {

// A report that could not be written; the message names the file and the reason.
class ReportWriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Writes `text` to `file` (its folder must exist); throws ReportWriteError, leaving no temporary
// behind. Every report writer writes through it.
void write_text_file(const std::filesystem::path& file, const std::string& text);

// Whether `file` could be written as write_text_file writes it — a regular file or a new one, its
// folder one where a temporary can be created — checked before a run starts, so a bad path costs
// nothing. Throws ReportWriteError naming the path and the reason. Creates nothing that stays.
void check_writable(const std::filesystem::path& file);

}  // namespace reapcheck
