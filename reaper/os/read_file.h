// A whole small file (a /proc or cgroupfs entry, a log) as a string.
#pragma once

#include <optional>
#include <string>

namespace reaper {

// `rel` under the directory `dirfd` (AT_FDCWD, or an absolute path: as open(2) takes it); empty
// when it cannot be opened or a read fails (a /proc entry whose process died while it was read).
std::optional<std::string> read_file_at(int dirfd, const std::string& rel);

// The same for a path; "" when it cannot be read. With open and read, not a stream: the signal
// ledger reads a few /proc files at each of the reaper's calls.
std::string read_file(const std::string& path);

}  // namespace reaper
