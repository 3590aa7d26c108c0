// Writing a report file whole: to a temporary beside it, then renamed, so a reader never sees
// half a report and an interrupted run leaves the previous one intact. A report path is a regular
// file or a new one: anything else (a FIFO, a device, a directory, a symlink) is refused and never
// opened — an open of a FIFO with no reader would block for ever, a rename over the others
// replace them.
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
// behind.
void write_text_file(const std::filesystem::path& file, const std::string& text);

// Whether `file` could be written as write_text_file writes it — a regular file or a new one, a
// temporary created beside it, then renamed over it — checked before a run starts, so a bad path
// costs nothing. Throws ReportWriteError naming the path and the reason. Creates nothing that
// stays.
void check_writable(const std::filesystem::path& file);

}  // namespace reapcheck
