// Writing a report file whole: to a temporary beside it, then renamed, so a reader never sees
// half a report and an interrupted run leaves the previous one intact.
#pragma once

#include <filesystem>
#include <string>

namespace reapcheck {

void write_text_file(const std::filesystem::path& file, const std::string& text);

}  // namespace reapcheck
